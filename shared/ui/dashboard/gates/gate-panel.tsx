import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { useGateAudit } from '../../common/gate-audit';
import { yardTime } from '../../common/time';
import { AuditTable, reasonWords } from './audit-table';
import { type GateContext, type GateState, gateView, retryAfterSec } from './gate-words';
import { OpenGateDialog } from './open-gate-dialog';

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
  const [retryAt, setRetryAt] = useState<number | undefined>();
  const [now, setNow] = useState(Date.now());
  const [dialog, setDialog] = useState(false);
  const openRef = useRef<HTMLButtonElement>(null);

  // One timer to turn the button on again when a rate limit ends (no polling).
  useEffect(() => {
    if (retryAt === undefined) return;
    const t = setTimeout(() => setNow(Date.now()), Math.max(0, retryAt - Date.now()) + 50);
    return () => clearTimeout(t);
  }, [retryAt]);
  // Back to the Open button once the modal dialog is gone.
  const wasOpen = useRef(false);
  useEffect(() => {
    if (wasOpen.current && !dialog) openRef.current?.focus();
    wasOpen.current = dialog;
  }, [dialog]);

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
    Math.max(now, Date.now()),
    clock,
  );
  const context: GateContext = { site: props.site, gate: gate.name };
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
      <div class="gate-open">
        <button
          type="button"
          class="primary"
          ref={openRef}
          disabled={!view.open.enabled}
          aria-describedby={view.open.why ? whyId : undefined}
          onClick={() => setDialog(true)}
        >
          Open {gate.name}
        </button>
        {view.open.why && (
          <p id={whyId} class="gate-why">
            {view.open.why}
          </p>
        )}
      </div>
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
      {dialog && (
        <OpenGateDialog
          gateId={gate.id}
          context={context}
          simulated={gate.relay?.driver === 'simulated'}
          onClose={() => setDialog(false)}
          onAnswered={({ problem }) => {
            if (problem instanceof ProblemError && problem.code === 'rate-limited')
              setRetryAt(Date.now() + retryAfterSec(problem.problem.retryAfterSec) * 1000);
            void loadAudit();
            props.onActuated();
          }}
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
