import type { Schemas } from '../../common/api/client';
import { yardDateTime, yardTime } from '../../common/time';
import { MovementDetails } from './movement-details';
import type { NameBook } from './names';

export type Movement = Schemas['Movement'];

/** "forced-check-in: already in yard X" -> "already in yard X": the detail is what a clerk reads. */
export function warningText(w: string): string {
  const i = w.indexOf(': ');
  return i > 0 ? w.slice(i + 2) : w;
}

/** One movement and, when expanded, its pictures and what the gate did. */
export function MovementRow(props: {
  m: Movement;
  book: NameBook;
  locations: Map<string, string>;
  gateName: string | undefined;
  timeZone: string;
  expanded: boolean;
  fresh: boolean;
  onToggle: () => void;
}) {
  const { m, book } = props;
  const name = (kind: Parameters<NameBook['name']>[0], id: string | null) =>
    id ? (book.name(kind, id) ?? '…') : '';
  const pictures = m.attachmentIds.length;
  const detailsId = `movement-${m.id}-details`;
  return (
    <>
      <tr class={props.fresh ? 'fresh' : undefined} data-movement-id={m.id}>
        <td>
          <time dateTime={m.at} title={yardDateTime(m.at, props.timeZone)}>
            {yardTime(m.at, props.timeZone)}
          </time>
        </td>
        <td>
          <span class={`badge ${m.direction === 'in' ? 'ok' : ''}`}>
            {m.direction === 'in' ? 'In' : 'Out'}
          </span>
          {props.gateName && <div class="muted small">{props.gateName}</div>}
        </td>
        <td>
          {name('trailer', m.trailerId)}
          {m.loadStatus && m.loadStatus !== 'unknown' && <div class="muted small">{m.loadStatus}</div>}
        </td>
        <td>{name('truck', m.truckId)}</td>
        <td>{name('driver', m.driverId)}</td>
        <td>{name('carrier', m.carrierId)}</td>
        <td>{m.sealNumber ?? ''}</td>
        <td>{m.locationId ? (props.locations.get(m.locationId) ?? '…') : ''}</td>
        <td>
          {m.overrideReason && (
            <div>
              <span class="badge warn">Override</span> {m.overrideReason}
            </div>
          )}
          {m.warnings.map((w) => (
            <div key={w} class="warning">
              {warningText(w)}
            </div>
          ))}
        </td>
        <td>{name('user', m.operatorId)}</td>
        <td>
          <button
            type="button"
            aria-expanded={props.expanded}
            aria-controls={detailsId}
            onClick={props.onToggle}
          >
            {props.expanded
              ? 'Hide'
              : pictures
                ? `${pictures} picture${pictures === 1 ? '' : 's'}`
                : 'Details'}
          </button>
        </td>
      </tr>
      {props.expanded && (
        <tr class="details" id={detailsId}>
          <td colSpan={11}>
            <MovementDetails m={m} timeZone={props.timeZone} trailer={name('trailer', m.trailerId)} />
          </td>
        </tr>
      )}
    </>
  );
}
