import type { Ref } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { describedBy, Field } from '../../common/components/field';
import type { CodeLookup } from './appointment-lookup';
import { matchSummary, normalCode } from './from-appointment';
import type { CheckInValues } from './model';

type Appointment = Schemas['Appointment'];

/**
 * The appointment field, first on the check-in form: Enter (a scanner's, or the clerk's) looks up
 * what it holds instead of submitting (appointment-lookup.ts). When several of today's
 * appointments match a ref or trailer number they are listed under it (the ARIA combobox pattern:
 * the focus stays in the field, Down/Up move, Enter picks, Esc closes the list).
 */
export function AppointmentCodeField(props: {
  values: CheckInValues;
  error: string | undefined;
  lookup: CodeLookup;
  inputRef: Ref<HTMLInputElement>;
  time: (iso: string) => string;
  onText: (code: string) => void;
  onFind: (code: string) => void;
  onPick: (a: Appointment) => void;
  onClose: () => void;
}) {
  const { values: v, lookup } = props;
  const matched = v.appointment && normalCode(v.code) === v.appointment.code ? v.appointment : null;
  const matches = lookup.kind === 'choose' ? lookup.matches : [];
  const [active, setActive] = useState(0);
  useEffect(() => setActive(0), [matches]);
  const message = props.error ?? (lookup.kind === 'failed' ? lookup.message : undefined);
  const hint =
    lookup.kind === 'finding'
      ? 'Finding the appointment…'
      : lookup.kind === 'choose'
        ? `${matches.length} appointments today match ${lookup.typed}: choose one with the Down and Up arrows and Enter.`
        : matched
          ? `Appointment found: ${matchSummary(matched, props.time)}`
          : 'Scan the gate pass or type the code, a PO / BOL number or the trailer number, and press Enter. Leave empty for a walk-in.';
  const open = matches.length > 0;
  const optionId = (i: number) => `ci-code-opt-${i}`;
  return (
    <Field id="ci-code" label="Appointment code" error={message} hint={hint}>
      <input
        {...describedBy('ci-code', message, true)}
        ref={props.inputRef}
        class={matched ? 'code matched' : 'code'}
        value={v.code}
        role="combobox"
        aria-autocomplete="none"
        aria-expanded={open}
        aria-controls="ci-code-matches"
        aria-activedescendant={open ? optionId(active) : undefined}
        onInput={(e) => props.onText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
            e.preventDefault();
            const step = e.key === 'ArrowDown' ? 1 : -1;
            setActive((i) => (i + step + matches.length) % matches.length);
            return;
          }
          if (open && e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            props.onClose();
            return;
          }
          if (e.key !== 'Enter' || e.ctrlKey || e.altKey) return;
          e.preventDefault(); // never submits: the gate opens only on the clerk's check-in
          const chosen = matches[active];
          if (open && chosen) props.onPick(chosen);
          else props.onFind(e.currentTarget.value);
        }}
        onBlur={(e) => {
          if (!matched && lookup.kind === 'idle' && normalCode(e.currentTarget.value))
            props.onFind(e.currentTarget.value);
        }}
        autoComplete="off"
        spellcheck={false}
        autoCapitalize="characters"
        placeholder="e.g. K7MQ3XPA or PO-4711"
      />
      <div
        id="ci-code-matches"
        role="listbox"
        class="appointment-matches"
        aria-label="Today's appointments that match"
        hidden={!open}
      >
        {matches.map((a, i) => (
          // Reached with the arrow keys from the field (aria-activedescendant), as the combobox
          // pattern wants: the options take no focus and need no key handler of their own.
          // biome-ignore lint/a11y/useFocusableInteractive: see above
          // biome-ignore lint/a11y/useKeyWithClickEvents: see above
          <div
            key={a.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === active}
            class={i === active ? 'active' : undefined}
            onMouseDown={(e) => e.preventDefault()} // the field keeps the focus
            onClick={() => props.onPick(a)}
          >
            <strong>{props.time(a.startAt)}</strong> {a.carrierName}
            {a.trailerNumber && `, trailer ${a.trailerNumber}`}, {a.doorName}
            {a.refs.length > 0 && <span class="muted"> ({a.refs.join(', ')})</span>}
            <span class="muted"> code {a.code}</span>
          </div>
        ))}
      </div>
    </Field>
  );
}
