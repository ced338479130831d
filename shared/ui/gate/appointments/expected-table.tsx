import { duration, yardDateTime, yardTime } from '../../common/time';
import { type Appointment, expectedStatus, mayCheckIn, STATUS_LABEL, STATUS_TONE } from './expected-rows';

/**
 * Today's appointments by time: who, which unit, which door, and the status the clerk reads; a
 * row not yet arrived has a button that opens the check-in with its code looked up.
 */
export function ExpectedTable(props: {
  rows: Appointment[];
  now: number;
  lateGraceMinutes: number;
  timeZone: string;
  mayWork: boolean;
  changed: ReadonlySet<string>;
  onCheckIn: (a: Appointment) => void;
}) {
  const tz = props.timeZone;
  return (
    <table class="expected">
      <caption class="visually-hidden">Today's appointments by time</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Status</th>
          <th scope="col">Code</th>
          <th scope="col">Carrier</th>
          <th scope="col">Trailer / truck</th>
          <th scope="col">Driver</th>
          <th scope="col">Load</th>
          <th scope="col">Door</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((a) => {
          const status = expectedStatus(a, props.now, props.lateGraceMinutes);
          if (!status) return null;
          return (
            <tr
              key={a.id}
              id={`appt-${a.code}`}
              class={`status-${status}${props.changed.has(a.id) ? ' changed' : ''}`}
            >
              <th scope="row">
                <time dateTime={a.startAt} title={yardDateTime(a.startAt, tz)}>
                  {yardTime(a.startAt, tz, props.now)}
                </time>
              </th>
              <td>
                <span class={`badge ${STATUS_TONE[status]}`}>{STATUS_LABEL[status]}</span>
                <StatusDetail a={a} status={status} now={props.now} timeZone={tz} />
              </td>
              <td class="code">{a.code}</td>
              <td>{a.carrierName}</td>
              <td>
                {a.trailerNumber ?? <span class="muted">no trailer given</span>}
                {a.truckPlate && ` / ${a.truckPlate}`}
              </td>
              <td>{a.driverName ?? <span class="muted">not given</span>}</td>
              <td>{a.loadTypeName}</td>
              <td>{a.doorName}</td>
              <td>
                {props.mayWork && mayCheckIn(status) && (
                  <button type="button" onClick={() => props.onCheckIn(a)}>
                    Check in <span class="visually-hidden">{a.code}</span>
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The small print under the badge: how late, when it arrived (and whether on time), docked since. */
function StatusDetail(props: { a: Appointment; status: string; now: number; timeZone: string }) {
  const { a, status, now, timeZone } = props;
  const at = (iso: string | null) => (iso ? yardTime(iso, timeZone, now) : '');
  let text = '';
  if (status === 'late') text = `${duration(now - Date.parse(a.startAt))} after start`;
  else if (status === 'arrived')
    text = `at ${at(a.arrivedAt)}${a.arrival ? `, ${a.arrival.replace('_', ' ')}` : ''}`;
  else if (status === 'docked') text = `at ${at(a.dockedAt)}`;
  else if (status === 'completed') text = `at ${at(a.completedAt)}`;
  else if (status === 'no_show') text = 'may still come: check in as late';
  return text ? <small class="status-detail">{text}</small> : null;
}
