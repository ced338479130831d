import type { Schemas } from '../../common/api/client';
import { AttachmentImage } from '../../common/attachment-image';
import { yardDateTime, yardTime } from '../../common/time';
import { yard } from '../yard';
import { PrintableReceipt } from './receipt';

export interface Confirmed {
  movement: Schemas['MovementCreated'];
  /** How the clerk knew the units, for the panel's words. */
  labels: {
    unit: string;
    driver: string | null;
    spot: string | null;
    gate: string | null;
    /** The matched appointment ("K7MQ3XPA, Lone Star at 10:30"); null for a walk-in. */
    appointment?: string | null;
    /** For the driver's receipt: the numbers as checked in and the appointment's code alone. */
    trailer?: string | null;
    truck?: string | null;
    code?: string | null;
  };
}

/** What the last check-in did: recorded (always), the gate (opened or why not), the pictures. */
export function Confirmation(props: { confirmed: Confirmed; timeZone: string; onDismiss: () => void }) {
  const { movement: m, labels } = props.confirmed;
  return (
    <section class="panel confirmation" aria-labelledby="ci-done-heading" role="status">
      <h2 id="ci-done-heading">
        Checked in: {labels.unit}{' '}
        <time dateTime={m.at} title={yardDateTime(m.at, props.timeZone)}>
          at {yardTime(m.at, props.timeZone)}
        </time>
      </h2>
      <GateResult movement={m} gate={labels.gate} />
      <dl class="facts">
        <dt>Appointment</dt>
        <dd>{labels.appointment ?? 'none (walk-in)'}</dd>
        <dt>Spot or door</dt>
        <dd>{labels.spot ?? 'none (place the trailer later)'}</dd>
        <dt>Load</dt>
        <dd>{m.loadStatus ?? '-'}</dd>
        <dt>Seal</dt>
        <dd>{m.sealNumber ?? 'none'}</dd>
        <dt>Driver</dt>
        <dd>{labels.driver ?? 'none'}</dd>
        {m.overrideReason && (
          <>
            <dt>Admitted by override</dt>
            <dd>{m.overrideReason}</dd>
          </>
        )}
        {(m.createdUnits.trailerId || m.createdUnits.truckId) && (
          <>
            <dt>Registered</dt>
            <dd>
              {[m.createdUnits.trailerId && 'new trailer', m.createdUnits.truckId && 'new truck']
                .filter(Boolean)
                .join(', ')}
            </dd>
          </>
        )}
      </dl>
      {m.warnings.length > 0 && (
        <ul class="warnings">
          {m.warnings.map((w) => (
            <li key={w}>{warningText(w)}</li>
          ))}
        </ul>
      )}
      {m.snapshots.length > 0 && (
        <div class="pictures">
          {m.snapshots.map((s) =>
            s.attachmentId ? (
              <figure key={s.cameraId}>
                <AttachmentImage id={s.attachmentId} alt={`${s.cameraName} at check-in of ${labels.unit}`} />
                <figcaption>{s.cameraName}</figcaption>
              </figure>
            ) : (
              <p key={s.cameraId} class="muted">
                {s.cameraName}: no picture ({s.error})
              </p>
            ),
          )}
        </div>
      )}
      <div class="actions">
        <button type="button" onClick={() => window.print()}>
          Print receipt
        </button>
        <button type="button" onClick={props.onDismiss}>
          Close
        </button>
      </div>
      <PrintableReceipt
        yardName={yard.value?.name ?? null}
        trailer={labels.trailer ?? (labels.truck ? null : labels.unit)}
        truck={labels.truck ?? null}
        place={labels.spot}
        at={m.at}
        code={labels.code ?? null}
        gate={labels.gate}
        timeZone={props.timeZone}
      />
    </section>
  );
}

function GateResult(props: { movement: Schemas['MovementCreated']; gate: string | null }) {
  const a = props.movement.actuation;
  if (!a) return <p class="message ok">Recorded. No gate was opened (record only).</p>;
  if (a.result === 'ok') return <p class="message ok">Recorded, and {props.gate ?? 'the gate'} opened.</p>;
  return (
    <p class="message warn">
      Recorded, but {props.gate ?? 'the gate'} did not open
      {a.error ? `: ${a.error}` : a.code ? ` (${a.code})` : ''}. Open it from the Lanes screen or by hand; the
      check-in stands.
    </p>
  );
}

/** The movement's warnings ("code: detail") as the clerk reads them. */
const WARNINGS: Record<string, string> = {
  'driver-override': 'Driver admitted by override; the check said',
  'snapshot-unavailable': 'No picture',
  'snapshot-failed': 'A camera gave no picture',
  'already-in-yard': 'Recorded anyway',
  'not-in-yard': 'Recorded anyway',
};

export function warningText(w: string): string {
  const at = w.indexOf(': ');
  const code = at < 0 ? w : w.slice(0, at);
  const detail = at < 0 ? '' : w.slice(at + 2).replaceAll('-', ' ');
  const label = WARNINGS[code];
  return label ? `${label}: ${detail}` : w;
}
