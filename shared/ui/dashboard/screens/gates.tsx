import { useCallback, useEffect, useState } from 'preact/hooks';
import { session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { onLive } from '../../common/live';
import { may } from '../access';
import { type Gate, GatePanel } from '../gates/gate-panel';
import { type SiteStatus, siteLinkWarning } from '../gates/site-link';
import { serverMode, timeZone, yard } from '../scope';
import {
  loadHardwareStatus,
  loadSyncStatus,
  loadYardGates,
  type HardwareStatus as Status,
} from '../sites/data';
import '../gates/gates.css';

type EventData = {
  yardId?: string | null;
  data?: { gateId?: string | null; yardId?: string; siteId?: string };
};

/**
 * Gates of the chosen yard: each gate's relay state, its Open button (reason required, audited) and
 * its opening log. At the cloud the site's edge opens the gate; the site's link is shown above.
 */
export function Gates() {
  const y = yard.value;
  const [gates, setGates] = useState<Gate[] | null>(null);
  const [status, setStatus] = useState<Status | null>(null);
  const [site, setSite] = useState<SiteStatus | undefined>();
  const [problem, setProblem] = useState<string | null>(null);
  const [changed, setChanged] = useState<Record<string, number>>({});
  const yardId = y?.id;
  const atCloud = serverMode.value === 'cloud';

  const loadStatus = useCallback(async () => {
    try {
      setStatus(await loadHardwareStatus());
    } catch (err) {
      setProblem(`The relay states could not be loaded: ${(err as Error).message}`);
    }
  }, []);
  const loadSite = useCallback(async () => {
    if (!atCloud || !yardId) return;
    const sync = await loadSyncStatus().catch(() => null);
    setSite(sync && 'sites' in sync ? sync.sites.find((s) => s.siteId === yardId) : undefined);
  }, [atCloud, yardId]);

  useEffect(() => {
    if (!yardId) return;
    setGates(null);
    loadYardGates(yardId).then(
      (items) => {
        setGates(items);
        setProblem(null);
      },
      (err: Error) =>
        setProblem(`The gates could not be loaded: ${err.message} Reload the page to try again.`),
    );
    void loadStatus();
    void loadSite();
  }, [yardId, loadStatus, loadSite]);

  useEffect(() => {
    const bump = (ids: string[]) =>
      setChanged((c) =>
        Object.fromEntries([...Object.entries(c), ...ids.map((id) => [id, (c[id] ?? 0) + 1])]),
      );
    const all = () => bump((gates ?? []).map((g) => g.id));
    return onLive(
      ['movement.created', 'sync.applied', 'site.status'],
      (e) => {
        const d = e.data as EventData;
        if (e.type === 'site.status') {
          if (d.data?.siteId === yardId) setSite(d.data as SiteStatus);
          return;
        }
        if (e.type === 'movement.created') {
          // A movement through a gate may have opened it: its log has a new line.
          if (d.data?.gateId && d.data.yardId === yardId) bump([d.data.gateId]);
        } else if (d.yardId === yardId || d.yardId === undefined || d.yardId === null) {
          all(); // rows from the site (its actuations) arrived at the cloud
        }
        void loadStatus();
      },
      () => {
        void loadStatus();
        void loadSite();
        all();
      },
    );
  }, [yardId, gates, loadStatus, loadSite]);

  const role = session.principal.value?.role;
  const mayOpen = may.openGate(role);
  const warning = siteLinkWarning(site, timeZone.value);
  if (!y) return <p>No yard is in your scope. Ask an admin to give you access to a yard.</p>;
  return (
    <section class="gates-screen" aria-labelledby="gates-heading">
      <h1 id="gates-heading">Gates of {y.name}</h1>
      {atCloud && (
        <p class="muted">
          Gates are opened by the site's own system: the office's request goes to the site, which answers
          whether the gate opened. Relay states are as the site last reported them.
        </p>
      )}
      {warning && <FormMessage kind="warn">{warning}</FormMessage>}
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {gates === null ? (
        !problem && <p class="muted">Loading the gates…</p>
      ) : gates.length === 0 ? (
        <p class="muted">{y.name} has no gates yet. An admin adds them under Master data → Gates.</p>
      ) : (
        <div class="gate-list">
          {gates.map((g) => (
            <GatePanel
              key={g.id}
              gate={g}
              status={status?.gates.find((s) => s.gateId === g.id)}
              driver={status?.drivers.find((d) => d.gateId === g.id)}
              site={site?.name ?? y.name}
              timeZone={timeZone.value}
              role={role}
              mayOpen={mayOpen}
              changed={changed[g.id] ?? 0}
              onActuated={loadStatus}
            />
          ))}
        </div>
      )}
    </section>
  );
}
