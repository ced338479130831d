import { useCallback, useEffect, useState } from 'preact/hooks';
import { problemText } from '../common/api/problem-text';
import { Dialog } from '../common/components/dialog';
import { Field, FormMessage } from '../common/components/field';
import { onLive } from '../common/live';
import { useSubmit } from '../common/use-submit';
import { type Appointment, bookings, cancel, type FreeSlot, moveTo, yardOf } from './data';
import { passHref } from './route';
import { SlotPicker } from './slot-picker';
import { changeOpen, changeText, dayAndClock, STATUS_TONE, STATUS_WORDS } from './words';

/**
 * My bookings: each booking's time in its yard's zone, its status (live: the gate's check-in shows
 * as "Arrived" without a reload, from `appointment.changed`), until when it may be changed, and
 * Change (another free time) and Cancel while it may. A refusal (the cutoff passed meanwhile) is
 * shown in the server's words on the booking.
 */
export function Bookings() {
  const [rows, setRows] = useState<Appointment[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const reload = useCallback(() => {
    bookings().then(
      (items) => {
        setRows(items);
        setNow(Date.now());
        setProblem(null);
      },
      (err) => setProblem(problemText(err)),
    );
  }, []);
  useEffect(() => {
    reload();
    const off = onLive(
      ['appointment.changed'],
      (e) => {
        const a = (e.data as { data?: Appointment }).data;
        if (a) setRows((rs) => (rs ? upsert(rs, a) : rs));
      },
      reload,
    );
    // "Changes until" turns into "closed" when the time passes, without a request.
    const tick = setInterval(() => setNow(Date.now()), 30_000);
    return () => {
      off();
      clearInterval(tick);
    };
  }, [reload]);
  const replace = (a: Appointment) => setRows((rs) => (rs ? upsert(rs, a) : rs));
  return (
    <section class="bookings" aria-labelledby="bookings-heading">
      <h1 id="bookings-heading">My bookings</h1>
      {problem && (
        <FormMessage kind="error">
          Your bookings could not be loaded: {problem}{' '}
          <button type="button" class="link" onClick={reload}>
            Try again
          </button>
        </FormMessage>
      )}
      {rows === null && !problem && <p class="muted">Loading…</p>}
      {rows?.length === 0 && (
        <p>
          No bookings yet. <a href="/carrier/">Book a time</a>.
        </p>
      )}
      <ul class="cards">
        {rows?.map((a) => (
          <BookingCard key={a.id} a={a} now={now} onChanged={replace} />
        ))}
      </ul>
    </section>
  );
}

/** The list with `a` in it, in start order (a booking of another session appears too). */
function upsert(rows: Appointment[], a: Appointment): Appointment[] {
  const others = rows.filter((r) => r.id !== a.id);
  return [...others, a].sort((x, y) => x.startAt.localeCompare(y.startAt));
}

function BookingCard(props: { a: Appointment; now: number; onChanged: (a: Appointment) => void }) {
  const { a } = props;
  const yard = yardOf(a.yardId);
  const [moving, setMoving] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const move = useSubmit(async (slot: FreeSlot) => {
    const moved = await moveTo(a, slot.startAt);
    setMoving(false);
    setSaid(`Moved to ${dayAndClock(moved.startAt, yard.timeZone)}.`);
    props.onChanged(moved);
  });
  // The truck arrived (or the booking ended) meanwhile: what was said about changing it is past.
  useEffect(() => {
    if (a.status === 'scheduled') return;
    move.clear();
    setMoving(false);
  }, [a.status]);
  const refused = move.problem ?? null;
  // Refused for the cutoff (it passed, or the yard moved it, since the list was read): the words
  // say why and what to do; the buttons go.
  const closed = refused?.code === 'change-cutoff';
  const open = changeOpen(a, props.now) && !closed;
  const until = closed ? null : changeText(a, yard.timeZone, props.now);
  return (
    <li class="card" id={`booking-${a.code}`} aria-labelledby={`booking-${a.code}-title`}>
      <div class="card-head">
        <h2 id={`booking-${a.code}-title`}>{dayAndClock(a.startAt, yard.timeZone)}</h2>
        <span class={`badge status ${STATUS_TONE[a.status] ?? ''}`}>{STATUS_WORDS[a.status]}</span>
      </div>
      <p>
        {a.loadTypeName} at {yard.name || a.yardId}
        {a.doorName ? `, ${a.doorName}` : ''}
      </p>
      <p class="facts">
        Code <strong class="code">{a.code}</strong>
        {a.trailerNumber && <> · Trailer {a.trailerNumber}</>}
        {a.refs.length > 0 && <> · {a.refs.join(', ')}</>}
      </p>
      {until && <p class={open ? 'muted until' : 'until closed'}>{until}</p>}
      {said && <FormMessage kind="ok">{said}</FormMessage>}
      {refused && <FormMessage kind="error">{refused.message}</FormMessage>}
      {move.failed && <FormMessage kind="error">The change could not be sent. Try again.</FormMessage>}
      <div class="actions">
        {a.status !== 'cancelled' && (
          <a class="button" href={passHref(a.id)}>
            Pass
          </a>
        )}
        {open && (
          <button
            type="button"
            aria-expanded={moving}
            onClick={() => {
              move.clear();
              setSaid(null);
              setMoving(!moving);
            }}
          >
            Change
          </button>
        )}
        {open && (
          <button type="button" onClick={() => setCancelling(true)}>
            Cancel
          </button>
        )}
      </div>
      {moving && open && (
        <div class="move">
          <h3>Move to another free time</h3>
          {move.busy ? (
            <p class="muted">Moving…</p>
          ) : (
            <SlotPicker
              yardId={a.yardId}
              loadTypeId={a.loadTypeId}
              timeZone={yard.timeZone}
              current={a.startAt}
              label="Free times to move to"
              onPick={(s) => void move.run(s)}
            />
          )}
        </div>
      )}
      {cancelling && (
        <CancelDialog
          a={a}
          onClose={() => setCancelling(false)}
          onDone={(c) => {
            setCancelling(false);
            setSaid('Cancelled.');
            props.onChanged(c);
          }}
        />
      )}
    </li>
  );
}

function CancelDialog(props: { a: Appointment; onClose: () => void; onDone: (a: Appointment) => void }) {
  const [reason, setReason] = useState('');
  const send = useSubmit(async () =>
    props.onDone(await cancel(props.a, reason.trim() || 'Cancelled by the carrier')),
  );
  return (
    <Dialog id="cancel-booking" title={`Cancel booking ${props.a.code}?`} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send.run();
        }}
      >
        <Field id="cancel-reason" label="Why (optional)">
          <input id="cancel-reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
        {(send.problem || send.failed) && (
          <FormMessage kind="error">
            {send.problem?.message ?? 'The cancellation could not be sent. Try again.'}
          </FormMessage>
        )}
        <div class="actions">
          <button type="submit" class="danger" disabled={send.busy}>
            Cancel booking
          </button>
          <button type="button" onClick={props.onClose}>
            Keep it
          </button>
        </div>
      </form>
    </Dialog>
  );
}
