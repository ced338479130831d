import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { yardToday } from '../../common/time';
import { may } from '../access';
import { serverMode, timeZone, yards } from '../scope';
import { BookDialog } from './schedule-book';
import { type Appointment, reschedule, useDaySchedule } from './schedule-data';
import { DetailsDialog } from './schedule-details';
import { ScheduleGrid } from './schedule-grid';
import { addDays, dayFrame, placeBlocks, type Spot } from './schedule-layout';
import { clock, STATUS_WORDS, type Status, scheduleProblemText } from './schedule-words';
import './schedule.css';

const LEGEND: Status[] = ['scheduled', 'arrived', 'docked', 'completed', 'no_show'];

/**
 * The dock schedule (docs/web-apps.md "Dock schedule"): one yard-local day of the chosen yard,
 * doors as columns and time as rows, each appointment a block showing its status in words. The
 * office books from the free times, moves a block by keyboard or by dragging, and cancels with a
 * reason. Changes made elsewhere (bookings, arrivals at the gate) appear live.
 */
export function DockSchedule(props: { yardId: string }) {
  const y = yards.value.find((x) => x.id === props.yardId);
  if (!y) return <p>This yard is not in your scope. Choose another yard.</p>;
  // The yard's own zone (the scope's is the chosen yard's; the same one when mounted for it).
  const tz = y.timeZone ?? timeZone.value;
  return <YardSchedule key={`${y.id}|${tz}`} yardId={y.id} yardName={y.name} timeZone={tz} />;
}

function YardSchedule(props: { yardId: string; yardName: string; timeZone: string }) {
  const tz = props.timeZone;
  // A link may name the day (?date=2026-03-02) and an appointment to open (?appointment=<id>, as
  // "Search everywhere" does); else today in the yard. A new link to the open page moves it too.
  const { query } = useLocation();
  const askedDate = query.date && /^\d{4}-\d{2}-\d{2}$/.test(query.date) ? query.date : null;
  const [date, setDate] = useState(() => askedDate ?? yardToday(tz));
  useEffect(() => {
    if (askedDate) setDate(askedDate);
  }, [askedDate]);
  const { data, problem, reload, apply } = useDaySchedule(props.yardId, date, tz);
  const [said, setSaid] = useState('');
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [open, setOpen] = useState<Appointment | null>(null);
  // The linked appointment opens once, when its day has loaded.
  const [openedLink, setOpenedLink] = useState<string | null>(null);
  useEffect(() => {
    const id = query.appointment;
    if (!id || id === openedLink || !data) return;
    const asked = data.appointments.find((a) => a.id === id);
    if (asked) {
      setOpen(asked);
      setOpenedLink(id);
    }
  }, [query.appointment, data, openedLink]);
  const [booking, setBooking] = useState(false);
  const role = session.principal.value?.role;
  // Booking is the cloud's (or a standalone site's): a linked site shows the schedule read-only.
  const linked = serverMode.value === 'linked';
  const mayEdit = may.editAppointments(role) && !linked;

  const shown = useMemo(() => data?.appointments.filter((a) => a.status !== 'cancelled') ?? [], [data]);
  const frame = useMemo(
    () =>
      data
        ? dayFrame({
            date,
            timeZone: tz,
            slotMinutes: data.config.slotMinutes,
            openHours: data.config.openHours,
            closedDates: data.config.closedDates,
            appointments: shown,
          })
        : null,
    [data, shown, date, tz],
  );
  const blocks = useMemo(
    () => (frame && data ? placeBlocks(frame, data.doors, shown) : []),
    [frame, data, shown],
  );
  const cancelled = data?.appointments.filter((a) => a.status === 'cancelled') ?? [];
  const dateLabel = new Intl.DateTimeFormat(undefined, {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(Date.parse(`${date}T00:00:00Z`));

  const move = async (a: Appointment, to: Spot) => {
    if (!data) return;
    const door = data.doors[to.door];
    setBusyId(a.id);
    setRefusal(null);
    setSaid(`Moving ${a.code}…`);
    try {
      // The door always: without it the server would take another free door when this one is full,
      // and the office moved it within this door's column.
      const moved = await reschedule(a, {
        startAt: new Date(to.startAt).toISOString(),
        doorId: door?.id ?? a.doorId,
      });
      apply(moved);
      setSaid(`${moved.code} moved to ${moved.doorName} at ${clock(moved.startAt, tz)}.`);
    } catch (err) {
      const text = scheduleProblemText(err, tz);
      setRefusal(`${a.code} was not moved. ${text}`);
      setSaid(`${a.code} was not moved.`);
      void reload();
    } finally {
      setBusyId(null);
    }
  };

  return (
    <section class="dock-schedule" aria-labelledby="dock-heading">
      <div class="dock-bar">
        <h2 id="dock-heading">
          Dock schedule of {props.yardName}, {dateLabel}
        </h2>
        <div class="dock-day">
          <button type="button" onClick={() => setDate(addDays(date, -1))}>
            Previous day
          </button>
          <label>
            Day{' '}
            <input
              type="date"
              value={date}
              onChange={(e) => e.currentTarget.value && setDate(e.currentTarget.value)}
            />
          </label>
          <button type="button" onClick={() => setDate(addDays(date, 1))}>
            Next day
          </button>
          <button type="button" onClick={() => setDate(yardToday(tz))}>
            Today
          </button>
          {mayEdit && (
            <button type="button" class="primary" onClick={() => setBooking(true)} disabled={!data}>
              Book an appointment
            </button>
          )}
        </div>
      </div>
      {linked && (
        <p class="muted">
          Bookings are made in the cloud dashboard; this site shows them and records arrivals.
        </p>
      )}
      {!mayEdit && !linked && (
        <p class="muted">Read only: dispatchers and admins book and change appointments.</p>
      )}
      {data && !data.config.enabled && (
        <FormMessage kind="warn">
          Booking is not switched on for this yard: turn on scheduling in its scheduling settings.
        </FormMessage>
      )}
      <ul class="dock-legend" aria-label="Status colours">
        {LEGEND.map((s) => (
          <li key={s}>
            <span class={`dock-swatch status-${s}`} aria-hidden="true" />
            {STATUS_WORDS[s]}
          </li>
        ))}
      </ul>
      <p class="dock-said" role="status" aria-live="polite">
        {said}
      </p>
      {refusal && <FormMessage kind="error">{refusal}</FormMessage>}
      {problem !== null && (
        <FormMessage kind="error">
          The schedule could not be loaded. {scheduleProblemText(problem, tz)}
        </FormMessage>
      )}
      {!data || !frame ? (
        problem === null && <p class="muted">Loading the schedule…</p>
      ) : data.doors.length === 0 ? (
        <p>This yard has no active doors. Add door locations under Master data, then book them here.</p>
      ) : (
        <div class="dock-scroll">
          <ScheduleGrid
            frame={frame}
            doors={data.doors}
            blocks={blocks}
            mayEdit={mayEdit}
            busyId={busyId}
            onOpen={setOpen}
            onMove={(a, to) => void move(a, to)}
            announce={setSaid}
          />
        </div>
      )}
      {data && (
        <p class="muted dock-count">
          {shown.length === 0
            ? 'No appointments this day.'
            : `${shown.length} ${shown.length === 1 ? 'appointment' : 'appointments'} this day.`}
          {cancelled.length > 0 &&
            ` Cancelled: ${cancelled.map((a) => `${a.code} (${a.carrierName})`).join(', ')}.`}
        </p>
      )}
      {booking && data && (
        <BookDialog
          yardId={props.yardId}
          date={date}
          dateLabel={dateLabel}
          timeZone={tz}
          loadTypes={data.loadTypes}
          doors={data.doors}
          onClose={() => setBooking(false)}
          onBooked={(a) => {
            apply(a);
            setBooking(false);
            setRefusal(null);
            setSaid(`Booked ${a.code}: ${a.carrierName} at ${a.doorName}, ${clock(a.startAt, tz)}.`);
          }}
        />
      )}
      {open && (
        <DetailsDialog
          appointment={data?.appointments.find((a) => a.id === open.id) ?? open}
          timeZone={tz}
          mayEdit={mayEdit}
          onClose={() => setOpen(null)}
          onCancelled={(a) => {
            apply(a);
            setOpen(null);
            setSaid(`${a.code} cancelled.`);
          }}
        />
      )}
    </section>
  );
}
