import type { Ref } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field } from '../../common/components/field';
import { findByCode } from '../appointments/data';
import { yards } from '../yard';
import { knownUnits } from './appointment-data';
import { fillFromAppointment, matchSummary, normalCode } from './from-appointment';
import type { CheckInValues } from './model';

export type CodeLookup =
  | { kind: 'idle' }
  | { kind: 'finding' }
  | { kind: 'found' }
  | { kind: 'failed'; message: string };

/**
 * The appointment code, first on the check-in form (docs/domain.md "At the gate"): a scanner types
 * the code and Enter (a person may type it and press Enter or Tab). The booking then fills the form
 * (from-appointment.ts) and its door is suggested; without a code the check-in is a walk-in.
 */
export function useAppointmentCode(
  yardId: string,
  values: CheckInValues,
  set: (patch: Partial<CheckInValues>) => void,
): { lookup: CodeLookup; find: (typed: string) => Promise<void>; reset: () => void } {
  const [lookup, setLookup] = useState<CodeLookup>({ kind: 'idle' });
  const latest = useRef({ values, set });
  latest.current = { values, set };
  const abort = useRef<AbortController | null>(null);

  const find = async (typed: string) => {
    const code = normalCode(typed);
    abort.current?.abort();
    if (!code) {
      setLookup({ kind: 'idle' });
      return;
    }
    const ctl = new AbortController();
    abort.current = ctl;
    setLookup({ kind: 'finding' });
    try {
      const a = await findByCode(code, ctl.signal);
      const refusal = refusalOf(a, yardId);
      if (refusal) {
        if (!ctl.signal.aborted) setLookup({ kind: 'failed', message: refusal });
        return;
      }
      const known = await knownUnits(a, ctl.signal);
      if (ctl.signal.aborted) return;
      latest.current.set(fillFromAppointment(latest.current.values, a, known));
      setLookup({ kind: 'found' });
    } catch (err) {
      if (ctl.signal.aborted) return;
      const notFound = err instanceof ProblemError && err.status === 404;
      setLookup({
        kind: 'failed',
        message: notFound
          ? `No appointment today with code ${code}. Check the code on the driver's pass, or clear the field to check in without an appointment.`
          : `The appointment could not be looked up: ${(err as Error).message} Try again, or check in without it.`,
      });
    }
  };
  const reset = () => {
    abort.current?.abort();
    setLookup({ kind: 'idle' });
  };
  return { lookup, find, reset };
}

/** Why this desk cannot check the appointment in, in the clerk's words (null: it can). */
function refusalOf(a: Schemas['Appointment'], yardId: string): string | null {
  if (a.yardId !== yardId) {
    const other = yards.value.find((y) => y.id === a.yardId);
    return `Appointment ${a.code} is for ${other ? other.name : 'another yard'}: choose that yard above, or send the driver there.`;
  }
  if (a.status === 'cancelled')
    return `Appointment ${a.code} was cancelled${a.cancelReason ? ` (${a.cancelReason})` : ''}. Check the truck in without it, or call the office.`;
  if (a.status === 'completed') return `Appointment ${a.code} is already completed: it cannot be used again.`;
  return null;
}

/** The field itself: Enter (a scanner's, or the clerk's) looks the code up instead of submitting. */
export function AppointmentCodeField(props: {
  values: CheckInValues;
  error: string | undefined;
  lookup: CodeLookup;
  inputRef: Ref<HTMLInputElement>;
  time: (iso: string) => string;
  onText: (code: string) => void;
  onFind: (code: string) => void;
}) {
  const { values: v, lookup } = props;
  const matched = v.appointment && normalCode(v.code) === v.appointment.code ? v.appointment : null;
  const message = props.error ?? (lookup.kind === 'failed' ? lookup.message : undefined);
  const hint =
    lookup.kind === 'finding'
      ? 'Finding the appointment…'
      : matched
        ? `Appointment found: ${matchSummary(matched, props.time)}`
        : 'Scan the gate pass or type the code and press Enter. Leave empty for a walk-in.';
  return (
    <Field id="ci-code" label="Appointment code" error={message} hint={hint}>
      <input
        {...describedBy('ci-code', message, true)}
        ref={props.inputRef}
        class={matched ? 'code matched' : 'code'}
        value={v.code}
        onInput={(e) => props.onText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter' || e.ctrlKey || e.altKey) return;
          e.preventDefault(); // never submits: the gate opens only on the clerk's check-in
          props.onFind(e.currentTarget.value);
        }}
        onBlur={(e) => {
          if (!matched && lookup.kind === 'idle' && normalCode(e.currentTarget.value))
            props.onFind(e.currentTarget.value);
        }}
        autoComplete="off"
        spellcheck={false}
        autoCapitalize="characters"
        placeholder="e.g. K7MQ3XPA"
      />
    </Field>
  );
}
