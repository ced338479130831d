import { useEffect, useMemo, useState } from 'preact/hooks';
import { problemText } from '../common/api/problem-text';
import { FormMessage } from '../common/components/field';
import { yardToday } from '../common/time';
import { type FreeSlot, freeSlots } from './data';
import { addDays, clock, dayLabel, localDate } from './words';

/** How far ahead the day strip reaches (the yard's lead time may allow more: the office books those). */
export const DAYS_AHEAD = 14;

/**
 * The free times of a load type: a strip of days (each with how many times are free) and the
 * day's free start times as buttons, in the yard's zone. Booking and "Change" both pick with it.
 */
export function SlotPicker(props: {
  yardId: string;
  loadTypeId: string;
  timeZone: string;
  /** The time to leave out (the booking's own, when it is being moved). */
  current?: string;
  label: string;
  onPick: (slot: FreeSlot) => void;
}) {
  const { yardId, loadTypeId, timeZone } = props;
  const [slots, setSlots] = useState<FreeSlot[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [day, setDay] = useState<string | null>(null);
  const today = yardToday(timeZone);
  useEffect(() => {
    let alive = true;
    setSlots(null);
    freeSlots(yardId, loadTypeId, today, addDays(today, DAYS_AHEAD - 1)).then(
      (s) => {
        if (!alive) return;
        setSlots(s.filter((x) => x.startAt !== props.current));
        setProblem(null);
      },
      (err) => alive && setProblem(problemText(err)),
    );
    return () => {
      alive = false;
    };
  }, [yardId, loadTypeId, today]);
  const byDay = useMemo(() => {
    const m = new Map<string, FreeSlot[]>();
    for (let i = 0; i < DAYS_AHEAD; i++) m.set(addDays(today, i), []);
    for (const s of slots ?? []) m.get(localDate(s.startAt))?.push(s);
    return m;
  }, [slots, today]);
  const shownDay = day ?? [...byDay].find(([, s]) => s.length > 0)?.[0] ?? null;
  if (problem) return <FormMessage kind="error">The free times could not be loaded: {problem}</FormMessage>;
  if (!slots) return <p class="muted">Looking for free times…</p>;
  if (slots.length === 0)
    return (
      <FormMessage kind="warn">
        No free time in the next {DAYS_AHEAD} days for this load type. Try another one, or call the yard.
      </FormMessage>
    );
  const times = shownDay ? (byDay.get(shownDay) ?? []) : [];
  return (
    <div class="slot-picker">
      <fieldset class="days">
        <legend class="visually-hidden">Day</legend>
        {[...byDay].map(([d, s]) => (
          <button
            key={d}
            type="button"
            class="day"
            aria-pressed={d === shownDay}
            disabled={s.length === 0}
            onClick={() => setDay(d)}
          >
            <span>{d === today ? 'Today' : dayLabel(d)}</span>
            <small>{s.length === 0 ? 'full' : `${s.length} free`}</small>
          </button>
        ))}
      </fieldset>
      {shownDay && (
        <fieldset class="times">
          <legend class="visually-hidden">{`${props.label}, ${dayLabel(shownDay)}`}</legend>
          {times.map((s) => (
            <button key={s.startAt} type="button" class="time" onClick={() => props.onPick(s)}>
              {clock(s.startAt, timeZone)}
            </button>
          ))}
        </fieldset>
      )}
    </div>
  );
}
