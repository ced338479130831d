import type { ComponentChildren } from 'preact';

/**
 * The toolbar above a log of sent things (Admin > Email's outbox, a webhook endpoint's
 * deliveries): a "Show" choice of status, a button that reads the log again, and any further
 * buttons of the screen. Styled by `.records-tools` (records/records.css, imported by the pages).
 */
export function StatusFilterTools<S extends string>(props: {
  status: S | '';
  /** The first choice, every status: "All mails", "All deliveries". */
  allLabel: string;
  choices: ReadonlyArray<{ value: S; label: string }>;
  onStatus: (status: S | '') => void;
  reloadLabel: string;
  onReload: () => void;
  children?: ComponentChildren;
}) {
  return (
    <div class="records-tools">
      <label>
        Show
        <select value={props.status} onChange={(e) => props.onStatus(e.currentTarget.value as S | '')}>
          <option value="">{props.allLabel}</option>
          {props.choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={props.onReload}>
        {props.reloadLabel}
      </button>
      {props.children}
    </div>
  );
}
