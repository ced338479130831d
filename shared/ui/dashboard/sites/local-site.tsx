import type { Schemas } from '../../common/api/client';
import { linkText } from '../../common/components/link-badge';
import { yardTime } from '../../common/time';
import { DeadLetters } from './dead-letters';
import { GateBadges } from './gate-states';
import { count, GATE_STATE_LABEL, gateTone, lastSeenWords, linkWords, skewWords } from './site-words';

type EdgeStatus = Schemas['SyncStatusLinked'] | Schemas['SyncStatusStandalone'];
type HardwareGate = Schemas['HardwareStatus']['gates'][number];

/**
 * This site's own status at an edge: its link to the cloud (linked) or that it has none
 * (standalone), and its gates' relays from the hardware status.
 */
export function LocalSite(props: {
  status: EdgeStatus;
  gates: HardwareGate[] | null;
  gatesProblem: string | null;
  timeZone: string;
  now: number;
  mayRetry: boolean;
  onChanged: () => void;
}) {
  const s = props.status;
  const tz = props.timeZone;
  const skew = skewWords(s.clockSkewMs);
  return (
    <div class="local-site">
      <section class="panel" aria-labelledby="site-link-heading">
        <h2 id="site-link-heading">Cloud link</h2>
        <p class="muted small-note">Site id: {s.siteId}</p>
        {s.mode === 'standalone' && (
          <p>
            <span class="badge">Standalone site, no cloud</span> It works on its own; nothing is sent
            anywhere.
          </p>
        )}
        <dl class="facts">
          {s.mode === 'linked' && (
            <>
              <dt>State</dt>
              <dd>
                <span class={`badge link-${linkText(s, tz).tone}`}>
                  {s.link === 'online' ? 'Online' : 'Offline'}
                </span>{' '}
                {linkWords(s.link, s.linkSince, tz, props.now)}
              </dd>
              <dt>Changes queued for the cloud</dt>
              <dd>{count.format(s.queued)}</dd>
              <dt>Last acknowledged by the cloud</dt>
              <dd>{lastSeenWords(s.lastAckAt, tz, props.now)}</dd>
              {s.pending > 0 && (
                <>
                  <dt>Kept for a newer version</dt>
                  <dd>{count.format(s.pending)} rows (they apply after this site is updated)</dd>
                </>
              )}
            </>
          )}
          <dt>Dead letters</dt>
          <dd>
            <DeadLetters
              n={s.deadLetters}
              siteName="this site"
              mayRetry={props.mayRetry}
              onDone={props.onChanged}
            />
          </dd>
          {skew && (
            <>
              <dt>Clock</dt>
              <dd>
                <span class="badge warn">{skew}</span> compared with the synced peers
              </dd>
            </>
          )}
        </dl>
      </section>
      <section class="panel" aria-labelledby="site-gates-heading">
        <h2 id="site-gates-heading">Gates</h2>
        {props.gatesProblem && <p class="retry-bad">The gates could not be read: {props.gatesProblem}</p>}
        {props.gates && props.gates.length === 0 && (
          <p>No gate is set up at this site. Add gates under Master data.</p>
        )}
        {props.gates && props.gates.length > 0 && (
          <>
            <GateBadges gates={props.gates} />
            <table class="gate-table">
              <caption class="visually-hidden">The gates of this site and their relays</caption>
              <thead>
                <tr>
                  <th scope="col">Gate</th>
                  <th scope="col">Relay</th>
                  <th scope="col">Last opening</th>
                </tr>
              </thead>
              <tbody>
                {props.gates.map((g) => (
                  <tr key={g.gateId}>
                    <th scope="row">{g.name}</th>
                    <td>
                      <span class={`badge ${gateTone(g.state)}`}>{GATE_STATE_LABEL[g.state]}</span>{' '}
                      <span class="muted">
                        {g.driver} relay, channel {g.channel}
                      </span>
                    </td>
                    <td>
                      {g.lastActuation ? (
                        <>
                          {yardTime(g.lastActuation.at, tz, props.now)} {g.lastActuation.result}
                          {g.lastActuation.error && <span class="retry-bad"> {g.lastActuation.error}</span>}
                        </>
                      ) : (
                        <span class="muted">not opened since the site started</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </section>
    </div>
  );
}
