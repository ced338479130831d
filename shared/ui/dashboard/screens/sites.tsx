import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { problemText } from '../../common/api/problem-text';
import { session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { onLive } from '../../common/live';
import { may } from '../access';
import { timeZone } from '../scope';
import { loadHardwareStatus, loadSyncStatus, type SyncStatus } from '../sites/data';
import { LocalSite } from '../sites/local-site';
import { SiteTable, SummaryLine } from '../sites/site-table';
import { replaceSite, type SiteStatus, summarise } from '../sites/site-words';
import { useReloadOnReconnect } from '../sites/use-reconnect';
import '../sites/sites.css';

type HardwareGate = Schemas['HardwareStatus']['gates'][number];

/**
 * The landing page. At the cloud: every site's link, queues, dead letters, version and gates,
 * offline sites first, kept current by `site.status` events (one site's row each). At an edge: this
 * site's own link (or that it is standalone) and its gates. Never polled: re-read on reconnect.
 */
export function Sites() {
  const [status, setStatus] = useState<SyncStatus | null>(null);
  const [gates, setGates] = useState<HardwareGate[] | null>(null);
  const [gatesProblem, setGatesProblem] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const principal = session.principal.value;
  const mayRetry = may.retryDeadLetters(principal);

  const reload = useCallback(() => {
    loadSyncStatus().then(
      (s) => {
        setStatus(s);
        setProblem(null);
        setNow(Date.now());
        if (s.mode === 'cloud') return;
        loadHardwareStatus().then(
          (h) => {
            setGates(h.gates);
            setGatesProblem(null);
          },
          (err) => setGatesProblem(problemText(err)),
        );
      },
      (err) => setProblem(problemText(err)),
    );
  }, []);

  useEffect(() => {
    reload();
    const off = onLive(
      ['site.status', 'sync.link'],
      (e) => {
        if (e.type === 'sync.link') return reload();
        const row = (e.data as { data?: SiteStatus }).data;
        if (!row) return;
        setStatus((s) => (s?.mode === 'cloud' ? { ...s, sites: replaceSite(s.sites, row) } : s));
        setNow(Date.now());
      },
      reload,
    );
    // "offline since 14:02, 12 min" grows while the page is open: re-render each minute (no request).
    const tick = setInterval(() => setNow(Date.now()), 60_000);
    return () => {
      off();
      clearInterval(tick);
    };
  }, [reload]);
  useReloadOnReconnect(reload);

  return (
    <section class="sites-screen" aria-labelledby="sites-heading">
      <h1 id="sites-heading">{status?.mode === 'cloud' ? 'Sites' : 'This site'}</h1>
      {problem && (
        <FormMessage kind="error">
          The sites' status could not be read: {problem} It is read again when the connection is back.
        </FormMessage>
      )}
      {!status && !problem && <p class="muted">Loading the sites' status…</p>}
      {status?.mode === 'cloud' && (
        <>
          <SummaryLine summary={summarise(status.sites)} sites={status.sites.length} />
          {status.sites.length === 0 ? (
            <p>
              No site is linked to this cloud yet. Start an edge with this cloud's address and its site
              credentials; it appears here when it first reports.
            </p>
          ) : (
            <SiteTable sites={status.sites} now={now} mayRetry={mayRetry} onChanged={reload} />
          )}
        </>
      )}
      {status && status.mode !== 'cloud' && (
        <LocalSite
          status={status}
          gates={gates}
          gatesProblem={gatesProblem}
          timeZone={timeZone.value}
          now={now}
          mayRetry={mayRetry}
          onChanged={reload}
        />
      )}
    </section>
  );
}
