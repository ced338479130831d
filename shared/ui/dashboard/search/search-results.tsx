import type { Schemas } from '../../common/api/client';
import { session } from '../../common/auth';
import { duration, yardDateTime, yardTime, yardToday } from '../../common/time';
import { mayUse } from '../access';
import { chooseYard, timeZone, yards } from '../scope';

type Hit = Schemas['SearchHit'];
type Where = NonNullable<Hit['where']>;
type Booked = NonNullable<Hit['appointment']>;

const KIND: Record<Hit['kind'], string> = {
  trailer: 'Trailer',
  truck: 'Truck',
  driver: 'Driver',
  carrier: 'Carrier',
  appointment: 'Appointment',
};

/** Master data's page of each kind, where a record outside any yard is opened. */
const MASTER: Record<Hit['kind'], string> = {
  trailer: '/dashboard/master/trailers',
  truck: '/dashboard/master/trucks',
  driver: '/dashboard/master/drivers',
  carrier: '/dashboard/master/carriers',
  appointment: '/dashboard/appointments/schedule',
};

/**
 * The search's answer under the box: best match first, each a link to where the record is seen
 * (a unit in a yard: that yard's map; otherwise its master data list, searched for it), plain
 * text for a role that may open neither.
 */
export function SearchResults(props: {
  id: string;
  q: string;
  hits: Hit[] | null;
  problem: string | null;
  onChosen: () => void;
}) {
  const { hits } = props;
  return (
    <div class="search-results" id={props.id}>
      <p class="visually-hidden" aria-live="polite">
        {hits ? `${hits.length} found for ${props.q}` : ''}
      </p>
      {props.problem && <p class="search-problem">{props.problem}</p>}
      {!props.problem && hits === null && <p class="muted">Searching…</p>}
      {hits?.length === 0 && (
        <p class="muted">
          Nothing found for “{props.q}”. Try part of a trailer number, a plate, a name or a SCAC.
        </p>
      )}
      {hits && hits.length > 0 && (
        <ul aria-label={`Found for ${props.q}`}>
          {hits.map((h) => (
            <li key={`${h.kind}-${h.id}`}>
              {linkOf(h) ? (
                <a
                  href={linkOf(h)!}
                  onClick={() => {
                    // The yard map and the dock schedule show the chosen yard: the unit's, the appointment's.
                    if (h.where?.state === 'in-yard' && h.where.yard) chooseYard(h.where.yard.id);
                    if (h.appointment) chooseYard(h.appointment.yard.id);
                    props.onChosen();
                  }}
                >
                  <HitText hit={h} />
                </a>
              ) : (
                <div class="search-hit">
                  <HitText hit={h} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function HitText(props: { hit: Hit }) {
  const h = props.hit;
  return (
    <>
      <span class="search-kind">{KIND[h.kind]}</span>
      <strong>{h.label}</strong>
      {h.secondary && <span class="muted"> {h.secondary}</span>}
      {h.where && <span class="search-where">{whereText(h.where)}</span>}
      {h.appointment && <span class="search-where">{bookedText(h.appointment)}</span>}
    </>
  );
}

/** The screen that shows the record, when the user's role may open it (billing opens neither). */
function linkOf(h: Hit): string | null {
  const role = session.principal.value?.role;
  if (h.appointment) {
    // Its yard's dock schedule on its day (the yard's own date of the start).
    if (!mayUse('appointments', role)) return null;
    const date = yardToday(zoneOf(h.appointment.yard.id), Date.parse(h.appointment.startAt));
    return `${MASTER.appointment}?date=${date}&appointment=${encodeURIComponent(h.id)}`;
  }
  if (h.where?.state === 'in-yard' && h.where.yard) return mayUse('map', role) ? '/dashboard/map' : null;
  if (!mayUse('master', role)) return null;
  const q = h.kind === 'truck' ? '' : `?q=${encodeURIComponent(h.label)}`;
  return `${MASTER[h.kind]}${q}`;
}

/** A yard's time zone (the scope's when the yard is not among the user's). */
function zoneOf(yardId: string | undefined): string {
  return (yardId && yards.value.find((y) => y.id === yardId)?.timeZone) ?? timeZone.value;
}

/** "North yard, Tue 3 Mar 08:00, Door 2, scheduled; PO-4711, BOL 88120". */
export function bookedText(b: Booked): string {
  const when = yardDateTime(b.startAt, zoneOf(b.yard.id));
  const refs = b.refs.length > 0 ? `; ${b.refs.join(', ')}` : '';
  return `${b.yard.name}, ${when}, ${b.door.name}, ${b.status.replace('_', '-')}${refs}`;
}

/** "North yard, spot N-07, since 08:00 (4 h 5 min)"; "Left North yard at 10:30 through North gate". */
export function whereText(w: Where, now = Date.now()): string {
  const zone = zoneOf(w.yard?.id);
  const at = w.since ? yardTime(w.since, zone, now) : null;
  if (w.state === 'in-yard') {
    const place = [w.yard?.name ?? 'In a yard', w.location && `spot ${w.location.name}`]
      .filter(Boolean)
      .join(', ');
    return at ? `${place}, since ${at} (${duration(now - Date.parse(w.since!))})` : place;
  }
  if (w.state === 'left') {
    return ['Left', w.yard?.name ?? 'the yard', at && `at ${at}`, w.gate && `through ${w.gate.name}`]
      .filter(Boolean)
      .join(' ');
  }
  return 'Not checked in yet';
}
