import { useState } from 'preact/hooks';
import { yards } from '../scope';
import { loadYardGates } from './data';
import { GATE_STATE_LABEL, type GateState, gateCounts, gateTone } from './site-words';

type Gate = { gateId: string; state: GateState | 'simulated'; name?: string };

/** "3 ok · 1 fault" as badges: what each gate's relay last reported. */
export function GateBadges(props: { gates: Gate[] }) {
  if (props.gates.length === 0) return <span class="muted">no gates</span>;
  return (
    <span class="gate-badges">
      {gateCounts(props.gates).map(([state, n]) => (
        <span key={state} class={`badge ${gateTone(state)}`}>
          {n} {GATE_STATE_LABEL[state]}
        </span>
      ))}
    </span>
  );
}

/** Gate names by id for a site's yards, loaded when someone opens the list (not for every site up front). */
async function gateNames(siteId: string): Promise<Map<string, string>> {
  const mine = yards.value.filter((y) => y.siteId === siteId);
  const pages = await Promise.all(mine.map((y) => loadYardGates(y.id)));
  return new Map(pages.flatMap((items) => items.map((g) => [g.id, g.name] as const)));
}

/**
 * A site's gates at the cloud: the counts in view, each gate by name behind a disclosure.
 * `null` gates: the site has not reported them (an older edge).
 */
export function SiteGates(props: { siteId: string; siteName: string; gates: Gate[] | null }) {
  const [names, setNames] = useState<Map<string, string> | null>(null);
  const [failed, setFailed] = useState(false);
  if (props.gates === null) return <span class="muted">not reported</span>;
  const load = () => {
    if (names || failed) return;
    gateNames(props.siteId).then(setNames, () => setFailed(true));
  };
  return (
    <div class="site-gates">
      <GateBadges gates={props.gates} />
      {props.gates.length > 0 && (
        <details onToggle={load}>
          <summary>
            <span class="visually-hidden">{props.siteName}: </span>each gate
          </summary>
          <ul class="gate-list">
            {props.gates.map((g) => (
              <li key={g.gateId}>
                {names?.get(g.gateId) ?? (failed ? `Gate ${g.gateId.slice(0, 8)}` : '…')}:{' '}
                <span class={`badge ${gateTone(g.state)}`}>{GATE_STATE_LABEL[g.state]}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
