import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { useGateAudit } from '../../common/gate-audit';
import { OpenGateButton, useRetryAt } from '../../common/gates/open-gate';
import type { Gate } from '../yard';
import { ActuationAudit, ActuationLine } from './actuations';
import { BlobImage } from './camera-image';
import { cameraSnapshot } from './data';
import { laneView, type RelayState } from './gate-state';
import { GATE_HOUSE_OPEN } from './open-words';

export type GateStatus = Schemas['HardwareStatus']['gates'][number];
export type DriverStatus = Schemas['HardwareStatus']['drivers'][number];

const DIRECTION = { in: 'Entry', out: 'Exit', both: 'Entry and exit' } as const;

/**
 * One lane: the gate's relay state, its cameras' latest pictures, the last opening and the Open
 * button. `changed` is bumped by the screen when a movement passed this gate (live), which takes
 * new pictures and reloads the audit.
 */
export function LaneCard(props: {
  gate: Gate;
  status: GateStatus | undefined;
  driver: DriverStatus | undefined;
  timeZone: string;
  mayOpen: boolean;
  changed: number;
  onActuated: () => void;
}) {
  const { gate } = props;
  const { audit, auditError, loadAudit } = useGateAudit(gate.id, props.changed);
  const [pictures, setPictures] = useState(0);
  const { retryAt, now, noteAnswer } = useRetryAt();
  const [takenAt, setTakenAt] = useState<number | null>(null);

  useEffect(() => {
    if (props.changed > 0) setPictures((n) => n + 1);
  }, [props.changed]);

  const clock = (at: number) =>
    new Intl.DateTimeFormat(undefined, { timeZone: props.timeZone, timeStyle: 'medium' }).format(at);
  const view = laneView(
    {
      hasRelay: gate.relay !== null,
      state: (props.driver?.state ?? props.status?.state) as RelayState | undefined,
      driver: gate.relay?.driver,
      error: props.driver?.error ?? props.status?.lastActuation?.error ?? undefined,
      busy: props.status?.busy ?? false,
      retryAt,
      mayOpen: props.mayOpen,
    },
    now,
    clock,
  );
  // The last opening, and a later attempt that did not open (refused, fault) if there is one.
  const latest = audit?.items[0];
  const lastOk = audit?.items.find((a) => a.result === 'ok');
  const reasonId = `lane-${gate.id}-why`;

  return (
    <article class="panel lane" aria-labelledby={`lane-${gate.id}`}>
      <header>
        <div class="lane-head">
          <h2 id={`lane-${gate.id}`}>{gate.name}</h2>
          <span class={`badge ${view.badge.tone}`}>{view.badge.label}</span>
        </div>
        <span class="muted">
          {DIRECTION[gate.direction]}
          {gate.relay ? ` · ${gate.relay.driver} relay, channel ${gate.relay.channel}` : ''}
        </span>
      </header>
      <div class="lane-pictures">
        {gate.cameraIds.length === 0 && <p class="muted picture-placeholder">No camera at this gate.</p>}
        {gate.cameraIds.map((cameraId, i) => (
          <figure key={cameraId}>
            <BlobImage
              load={() => cameraSnapshot(cameraId)}
              reloadKey={pictures}
              alt={`Camera ${i + 1} at ${gate.name}, latest picture`}
              class="lane-picture"
              loadingText="Taking a picture…"
              onLoaded={i === 0 ? setTakenAt : undefined}
            />
          </figure>
        ))}
      </div>
      {gate.cameraIds.length > 0 && (
        <div class="lane-picture-bar">
          <span class="muted">{takenAt ? `Taken at ${clock(takenAt)}` : ''}</span>
          <button type="button" onClick={() => setPictures((n) => n + 1)}>
            Refresh picture{gate.cameraIds.length > 1 ? 's' : ''}
          </button>
        </div>
      )}
      <p class="lane-last">
        <strong>Last opened: </strong>
        {lastOk ? (
          <ActuationLine a={lastOk} timeZone={props.timeZone} />
        ) : audit ? (
          'not recently'
        ) : (
          'loading…'
        )}
      </p>
      {latest && latest !== lastOk && (
        <p class="lane-last">
          <strong>Last attempt: </strong>
          <ActuationLine a={latest} timeZone={props.timeZone} />
        </p>
      )}
      {auditError && <p class="error-text">The opening log could not be loaded: {auditError}</p>}
      <OpenGateButton
        gate={{ id: gate.id, name: gate.name, simulated: gate.relay?.driver === 'simulated' }}
        open={{ enabled: view.open.enabled, why: view.open.reason }}
        class="lane"
        whyId={reasonId}
        dialog={{ id: 'open', class: 'open-dialog', words: GATE_HOUSE_OPEN }}
        onAnswered={(answer) => {
          noteAnswer(answer);
          void loadAudit();
          props.onActuated();
        }}
      />
      {audit && (
        <ActuationAudit
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
