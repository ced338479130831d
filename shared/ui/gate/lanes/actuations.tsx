import type { Schemas } from '../../common/api/client';
import { yardDateTime, yardTime } from '../../common/time';

type Actuation = Schemas['GateActuation'];

const RESULT: Record<Actuation['result'], { label: string; tone: string }> = {
  ok: { label: 'opened', tone: 'ok' },
  fault: { label: 'relay fault', tone: 'bad' },
  refused: { label: 'refused', tone: 'warn' },
};

/** Who opened the gate, when, why: "14:05 · opened by Ana (check-in) · plate unreadable". */
export function ActuationLine(props: { a: Actuation; timeZone: string }) {
  const { a } = props;
  const r = RESULT[a.result];
  return (
    <span class="actuation">
      <time dateTime={a.at} title={yardDateTime(a.at, props.timeZone)}>
        {yardTime(a.at, props.timeZone)}
      </time>{' '}
      <span class={`badge ${r.tone}`}>{r.label}</span> by {a.requestedBy ?? 'unknown'}
      {a.requestedVia === 'cloud' ? ' (from the office)' : ''}
      {' · '}
      {a.reason ?? (a.movementId ? 'gate movement' : 'no reason given')}
      {a.error && <span class="muted"> · {a.error}</span>}
    </span>
  );
}

/** The gate's audit, newest first, in a disclosure so the card stays short. */
export function ActuationAudit(props: {
  gateName: string;
  items: Actuation[];
  timeZone: string;
  more: boolean;
  onMore: () => void;
}) {
  return (
    <details class="audit">
      <summary>Opening log of {props.gateName}</summary>
      {props.items.length === 0 ? (
        <p class="muted">Not opened yet.</p>
      ) : (
        <ol>
          {props.items.map((a) => (
            <li key={a.id}>
              <ActuationLine a={a} timeZone={props.timeZone} />
            </li>
          ))}
        </ol>
      )}
      {props.more && (
        <button type="button" class="link" onClick={props.onMore}>
          Show older openings
        </button>
      )}
    </details>
  );
}
