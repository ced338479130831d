import type { Schemas } from '../../common/api/client';
import { useGateAudit } from '../../common/gate-audit';
import { OpenGateButton, useRetryAt } from '../../common/gates/open-gate';
import { yardTime } from '../../common/time';
import { AuditTable, reasonWords } from './audit-table';
import { type GateState, gateView, officeOpenWords } from './gate-words';

export type Gate = Schemas['Gate'];
export type GateStatus = Schemas['HardwareStatus']['gates'][number];
export type DriverStatus = Schemas['HardwareStatus']['drivers'][number];

const DIRECTION = { in: 'Entry', out: 'Exit', both: 'Entry and exit' } as const;

/**
 * One gate: its relay state, the last opening, the Open button (or why it is off) and the opening
 * log. `changed` is bumped by the screen when something happened at this gate (live), which reloads
 * the log.
 */
export function GatePanel(props: {
  gate: Gate;
  status: GateStatus | undefined;
  driver: DriverStatus | undefined;
  site: string;
  timeZone: string;
  role: string | undefined;
  mayOpen: boolean;
  changed: number;
  onActuated: () => void;
}) {
  const { gate } = props;
  const { audit, auditError, loadAudit } = useGateAudit(gate.id, props.changed);
  const { retryAt, now, noteAnswer } = useRetryAt();

  const clock = (at: number) =>
    new Intl.DateTimeFormat(undefined, { timeZone: props.timeZone, timeStyle: 'medium' }).format(at);
  const view = gateView(
    {
      hasRelay: gate.relay !== null,
      state: stateOf(gate, props.status, props.driver),
      busy: props.status?.busy ?? false,
      error: props.driver?.error ?? props.status?.lastActuation?.error,
      retryAt,
      role: props.role,
      mayOpen: props.mayOpen,
    },
    now,
    clock,
  );
  const lastOk = audit?.items.find((a) => a.result === 'ok');
  const whyId = `gate-${gate.id}-why`;

  return (
    <article class="panel gate-panel" aria-labelledby={`gate-${gate.id}`}>
      <header class="gate-head">
        <h2 id={`gate-${gate.id}`}>{gate.name}</h2>
        <span class={`badge ${view.badge.tone}`}>{view.badge.label}</span>
        <span class="muted">
          {DIRECTION[gate.direction]}
          {gate.relay ? ` · ${gate.relay.driver} relay, channel ${gate.relay.channel}` : ''}
        </span>
      </header>
      <p class="gate-last">
        <strong>Last opened: </strong>
        {lastOk
          ? `${yardTime(lastOk.at, props.timeZone)} by ${lastOk.requestedBy ?? 'unknown'} · ${reasonWords(lastOk)}`
          : audit
            ? 'not recently'
            : 'loading…'}
      </p>
      <OpenGateButton
        gate={{ id: gate.id, name: gate.name, simulated: gate.relay?.driver === 'simulated' }}
        open={view.open}
        class="gate"
        whyId={whyId}
        dialog={{
          id: 'open-gate',
          class: 'open-gate-dialog',
          words: officeOpenWords({ site: props.site, gate: gate.name }),
        }}
        onAnswered={(answer) => {
          noteAnswer(answer);
          void loadAudit();
          props.onActuated();
        }}
      />
      {auditError && (
        <p class="error-text">
          The opening log could not be loaded: {auditError} Reload the page to try again.
        </p>
      )}
      {audit && (
        <AuditTable
          gateId={gate.id}
          gateName={gate.name}
          items={audit.items}
          timeZone={props.timeZone}
          more={audit.next !== null}
          onMore={() => audit.next && void loadAudit(audit.next)}
        />
      )}
    </article>
  );
}

/** The relay's state: the driver's own word at the site, else the hardware status' (the cloud's). */
function stateOf(gate: Gate, status: GateStatus | undefined, driver: DriverStatus | undefined): GateState {
  const state = driver?.state ?? status?.state;
  if (state === 'fault' || state === 'opening') return state;
  // A simulated relay works but pulses nothing: the office must not expect a barrier to move.
  if (gate.relay?.driver === 'simulated' || state === 'simulated') return 'simulated';
  return state ?? 'unknown';
}
