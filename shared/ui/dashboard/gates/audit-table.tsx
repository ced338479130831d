import type { Schemas } from '../../common/api/client';
import { yardDateTime, yardTime } from '../../common/time';

type Actuation = Schemas['GateActuation'];

const RESULT: Record<Actuation['result'], { label: string; tone: string }> = {
  ok: { label: 'opened', tone: 'ok' },
  fault: { label: 'relay fault', tone: 'bad' },
  refused: { label: 'refused', tone: 'warn' },
};

/** Through which side the opening came: the site's own apps, or the office at the cloud. */
export function sideWords(via: Actuation['requestedVia']): string {
  return via === 'cloud' ? 'from the cloud (office)' : 'at the site';
}

/** Why the gate opened: the reason typed, or the movement that opened it. */
export function reasonWords(a: Actuation): string {
  return a.reason ?? (a.movementId ? 'recorded gate movement' : 'no reason given');
}

/** The gate's opening log, newest first: who, when, why, what the gate did, through which side. */
export function AuditTable(props: {
  gateId: string;
  gateName: string;
  items: Actuation[];
  timeZone: string;
  more: boolean;
  onMore: () => void;
}) {
  const captionId = `audit-${props.gateId}`;
  if (props.items.length === 0) {
    return <p class="muted">{props.gateName} has no openings recorded yet.</p>;
  }
  return (
    <div class="table-wrap">
      <table class="audit-table">
        <caption id={captionId}>Opening log of {props.gateName}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Reason</th>
            <th scope="col">Result</th>
            <th scope="col">Through</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((a) => {
            const r = RESULT[a.result];
            return (
              <tr key={a.id}>
                <td>
                  <time dateTime={a.at} title={yardDateTime(a.at, props.timeZone)}>
                    {yardTime(a.at, props.timeZone)}
                  </time>
                </td>
                <td>{a.requestedBy ?? 'unknown'}</td>
                <td>{reasonWords(a)}</td>
                <td>
                  <span class={`badge ${r.tone}`}>{r.label}</span>
                  {a.error && <span class="muted audit-error"> {a.error}</span>}
                </td>
                <td>{sideWords(a.requestedVia)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {props.more && (
        <button type="button" class="link" onClick={props.onMore}>
          Show older openings of {props.gateName}
        </button>
      )}
    </div>
  );
}
