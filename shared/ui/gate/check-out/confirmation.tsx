import type { Schemas } from '../../common/api/client';
import { yardDateTime, yardTime } from '../../common/time';
import { timeZone } from '../yard';
import { GatePicture } from './picture';

type Created = Schemas['MovementCreated'];

/** What the gate did, in words a clerk acts on. */
function actuationText(a: Created['actuation']): { tone: 'ok' | 'warn' | 'bad'; text: string } {
  if (!a) return { tone: 'warn', text: 'The gate was not asked to open (it has no relay). Open it by hand.' };
  if (a.result === 'ok') return { tone: 'ok', text: 'Gate opened.' };
  const why = a.error ?? a.code ?? 'no reason given';
  if (a.result === 'refused') {
    return {
      tone: 'warn',
      text: `The gate did not open (${why}). Open it from the lane board once it is free.`,
    };
  }
  return { tone: 'bad', text: `The gate relay failed (${why}). Open the gate by hand and report the fault.` };
}

/** The recorded check-out: unit, gate, time, what the gate did, warnings and the gate's pictures. */
export function CheckOutDone(props: { movement: Created; unit: string; gate: string; onNext: () => void }) {
  const m = props.movement;
  const gate = actuationText(m.actuation);
  const tz = timeZone.value;
  // Warnings read "code: detail"; the detail is what the clerk needs. A gate without cameras is
  // said once, under the pictures.
  const warnings = m.warnings
    .filter((w) => !(m.snapshots.length === 0 && w.startsWith('snapshot-unavailable')))
    .map((w) => w.replace(/^[a-z-]+: /, ''));
  return (
    <section class="panel done" aria-labelledby="done-heading">
      <h2 id="done-heading" tabIndex={-1}>
        {props.unit} checked out
      </h2>
      <p>
        At {props.gate}, <time title={yardDateTime(m.at, tz)}>{yardTime(m.at, tz)}</time>
        {m.sealNumber && (
          <>
            {' '}
            with seal <span class="mono">{m.sealNumber}</span>
          </>
        )}
        .
      </p>
      <p class={`badge ${gate.tone} gate-result`} role="status">
        {gate.text}
      </p>
      {warnings.length > 0 && (
        <ul class="warnings">
          {warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {m.notes && <p class="muted">Note recorded: {m.notes}</p>}
      <div class="pictures">
        {m.snapshots.length === 0 && <p class="muted">No camera at this gate: no picture taken.</p>}
        {m.snapshots.map((s) =>
          s.attachmentId ? (
            <figure key={s.cameraId}>
              <GatePicture
                attachmentId={s.attachmentId}
                alt={`${s.cameraName} at check-out of ${props.unit}`}
              />
              <figcaption>{s.cameraName}</figcaption>
            </figure>
          ) : (
            <p key={s.cameraId} class="muted">
              {s.cameraName}: no picture ({s.error ?? 'unknown reason'}).
            </p>
          ),
        )}
      </div>
      <button type="button" class="primary" onClick={props.onNext}>
        Check out the next unit
      </button>
    </section>
  );
}
