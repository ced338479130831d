import { copyMondayToWeekdays, type FormErrors, type Span, WEEKDAYS, type Weekday } from './config-values';

/**
 * Opening hours per weekday, yard-local, each day with its spans (a lunch break is two spans; a day
 * without spans is closed). Spans that touch are joined by the booking (also across midnight), so a
 * night shift is 22:00–00:00 on one day and 00:00–06:00 on the next.
 */
export function HoursEditor(props: {
  hours: Record<Weekday, Span[]>;
  errors: FormErrors;
  timeZone: string;
  onChange: (hours: Record<Weekday, Span[]>) => void;
}) {
  const { hours, errors } = props;
  const setDay = (day: Weekday, spans: Span[]) => props.onChange({ ...hours, [day]: spans });
  return (
    <fieldset class="panel hours">
      <legend>Opening hours</legend>
      <p class="muted">
        In the yard’s time ({props.timeZone}). Bookings start and end inside these hours. Closing at midnight
        (00:00, 12:00 AM) means open to the end of the day; hours that touch join, also across midnight. A day
        without hours is closed.
      </p>
      {WEEKDAYS.map((d) => {
        const spans = hours[d.key];
        const dayError = errors[`openHours.${d.key}`];
        return (
          <fieldset key={d.key} class="hours-day">
            <legend>{d.label}</legend>
            <div class="spans">
              {spans.length === 0 && <span class="muted">Closed</span>}
              {spans.map((s, i) => {
                const at = `openHours.${d.key}.${i}`;
                const id = `hours-${d.key}-${i}`;
                const fromError = errors[`${at}.from`];
                const toError = errors[`${at}.to`] ?? errors[at];
                const put = (patch: Partial<Span>) =>
                  setDay(
                    d.key,
                    spans.map((x, j) => (j === i ? { ...x, ...patch } : x)),
                  );
                return (
                  <div key={i} class="span">
                    <label for={`${id}-from`}>Opens</label>
                    <input
                      id={`${id}-from`}
                      type="time"
                      value={s.from}
                      aria-invalid={fromError ? true : undefined}
                      aria-describedby={fromError ? `${id}-from-error` : undefined}
                      onInput={(e) => put({ from: e.currentTarget.value })}
                    />
                    <label for={`${id}-to`}>Closes</label>
                    <input
                      id={`${id}-to`}
                      type="time"
                      value={s.to}
                      aria-invalid={toError ? true : undefined}
                      aria-describedby={toError ? `${id}-to-error` : undefined}
                      onInput={(e) => put({ to: e.currentTarget.value })}
                    />
                    <button
                      type="button"
                      class="link"
                      aria-label={`Remove ${d.label} ${s.from || '…'} to ${s.to || '…'}`}
                      onClick={() =>
                        setDay(
                          d.key,
                          spans.filter((_, j) => j !== i),
                        )
                      }
                    >
                      Remove
                    </button>
                    {fromError && (
                      <small id={`${id}-from-error`} class="error" role="alert">
                        Opens: {fromError}
                      </small>
                    )}
                    {toError && (
                      <small id={`${id}-to-error`} class="error" role="alert">
                        Closes: {toError}
                      </small>
                    )}
                  </div>
                );
              })}
              {dayError && (
                <small class="error" role="alert">
                  {dayError}
                </small>
              )}
            </div>
            <button
              type="button"
              aria-label={`Add opening hours on ${d.label}`}
              disabled={spans.length >= 8}
              onClick={() => {
                const last = spans[spans.length - 1];
                const from = last && last.to !== '00:00' ? last.to : '06:00';
                setDay(d.key, [...spans, { from, to: from < '18:00' ? '18:00' : '00:00' }]);
              }}
            >
              Add hours
            </button>
          </fieldset>
        );
      })}
      <button type="button" onClick={() => props.onChange(copyMondayToWeekdays(hours))}>
        Copy Monday to Tuesday–Friday
      </button>
    </fieldset>
  );
}
