import { useState } from 'preact/hooks';
import { addClosedDate } from './config-values';

const dayWords = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** "2026-12-25" as the office reads it, "Fri, Dec 25, 2026" (a calendar date: no zone shifts it). */
export function dateWords(date: string): string {
  const at = Date.parse(`${date}T12:00:00Z`);
  return Number.isNaN(at) ? date : dayWords.format(at);
}

/** The yard's closed dates (holidays): no booking on these days whatever the opening hours say. */
export function ClosedDates(props: { dates: string[]; error?: string; onChange: (dates: string[]) => void }) {
  const [draft, setDraft] = useState('');
  const add = () => {
    props.onChange(addClosedDate(props.dates, draft));
    setDraft('');
  };
  return (
    <fieldset class="panel closed-dates">
      <legend>Closed dates</legend>
      <p class="muted">Holidays and other days without bookings, whatever the opening hours say.</p>
      {props.dates.length === 0 ? (
        <p>No closed dates.</p>
      ) : (
        <ul aria-label="Closed dates">
          {props.dates.map((d) => (
            <li key={d}>
              <span>{dateWords(d)}</span>
              <button
                type="button"
                class="link"
                aria-label={`Remove closed date ${dateWords(d)}`}
                onClick={() => props.onChange(props.dates.filter((x) => x !== d))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="add-date">
        <label for="closed-date-new">Add a closed date</label>
        <input
          id="closed-date-new"
          type="date"
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            // Enter adds the date (it would otherwise submit the whole form).
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <button type="button" onClick={add} disabled={!draft}>
          Add date
        </button>
      </div>
      {props.error && (
        <small class="error" role="alert">
          {props.error}
        </small>
      )}
    </fieldset>
  );
}
