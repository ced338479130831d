import { useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { findByCode } from '../appointments/data';
import { timeZone, yards } from '../yard';
import { knownUnits, searchToday } from './appointment-data';
import { fillFromAppointment, looksLikeCode, normalCode, preferCarrier } from './from-appointment';
import type { CheckInValues } from './model';

type Appointment = Schemas['Appointment'];

export type CodeLookup =
  | { kind: 'idle' }
  | { kind: 'finding' }
  | { kind: 'found' }
  /** Several of today's appointments have the ref or trailer number typed: the clerk picks one. */
  | { kind: 'choose'; typed: string; matches: Appointment[] }
  | { kind: 'failed'; message: string };

export interface AppointmentLookup {
  lookup: CodeLookup;
  /** Looks up what the appointment field holds: a code exactly, else a ref or trailer number. */
  find: (typed: string) => Promise<void>;
  /** Fills the form from one of the offered matches, exactly as a code does. */
  pick: (a: Appointment) => Promise<void>;
  reset: () => void;
}

/**
 * The appointment field's lookups (docs/domain.md "At the gate"): a scanner types the code and
 * Enter (a person may type it and press Enter or Tab); a code is matched exactly as scanned. What
 * matches no code is looked for among the yard's appointments of today by ref (PO / BOL number) or
 * trailer number: one match fills the form at once, several are offered to pick (those of the
 * carrier the form names first). The booking then fills the form (from-appointment.ts) and its door
 * is suggested; without an appointment the check-in is a walk-in.
 */
export function useAppointmentCode(
  yardId: string,
  values: CheckInValues,
  set: (patch: Partial<CheckInValues>) => void,
): AppointmentLookup {
  const [lookup, setLookup] = useState<CodeLookup>({ kind: 'idle' });
  const latest = useRef({ values, set });
  latest.current = { values, set };
  const abort = useRef<AbortController | null>(null);

  const start = () => {
    abort.current?.abort();
    const ctl = new AbortController();
    abort.current = ctl;
    setLookup({ kind: 'finding' });
    return ctl;
  };
  const failed = (ctl: AbortController, err: unknown) => {
    if (ctl.signal.aborted) return;
    setLookup({
      kind: 'failed',
      message: `The appointment could not be looked up: ${(err as Error).message} Try again, or check in without it.`,
    });
  };
  const fill = async (a: Appointment, ctl: AbortController) => {
    const refusal = refusalOf(a, yardId);
    if (refusal) {
      if (!ctl.signal.aborted) setLookup({ kind: 'failed', message: refusal });
      return;
    }
    const known = await knownUnits(a, ctl.signal);
    if (ctl.signal.aborted) return;
    latest.current.set(fillFromAppointment(latest.current.values, a, known));
    setLookup({ kind: 'found' });
  };

  const find = async (typed: string) => {
    const code = normalCode(typed);
    const text = typed.trim();
    if (!code) {
      abort.current?.abort();
      setLookup({ kind: 'idle' });
      return;
    }
    const ctl = start();
    try {
      if (looksLikeCode(code)) {
        const a = await findByCode(code, ctl.signal).catch((err: unknown) => {
          if (err instanceof ProblemError && err.status === 404) return null; // maybe a ref
          throw err;
        });
        if (a) return await fill(a, ctl);
      }
      const found = await searchToday(yardId, text, timeZone.value, ctl.signal);
      if (ctl.signal.aborted) return;
      const matches = preferCarrier(found, latest.current.values.carrier?.id);
      if (matches.length === 1) return await fill(matches[0]!, ctl);
      if (matches.length > 1) return setLookup({ kind: 'choose', typed: text, matches });
      setLookup({
        kind: 'failed',
        message: looksLikeCode(code)
          ? `No appointment today with code ${code}. Check the code on the driver's pass, or clear the field to check in without an appointment.`
          : `No appointment today with the code, ref or trailer number ${text}. Check what you typed, or clear the field to check in without an appointment.`,
      });
    } catch (err) {
      failed(ctl, err);
    }
  };
  const pick = async (a: Appointment) => {
    const ctl = start();
    try {
      await fill(a, ctl);
    } catch (err) {
      failed(ctl, err);
    }
  };
  const reset = () => {
    abort.current?.abort();
    setLookup({ kind: 'idle' });
  };
  return { lookup, find, pick, reset };
}

/** Why this desk cannot check the appointment in, in the clerk's words (null: it can). */
function refusalOf(a: Appointment, yardId: string): string | null {
  if (a.yardId !== yardId) {
    const other = yards.value.find((y) => y.id === a.yardId);
    return `Appointment ${a.code} is for ${other ? other.name : 'another yard'}: choose that yard above, or send the driver there.`;
  }
  if (a.status === 'cancelled')
    return `Appointment ${a.code} was cancelled${a.cancelReason ? ` (${a.cancelReason})` : ''}. Check the truck in without it, or call the office.`;
  if (a.status === 'completed') return `Appointment ${a.code} is already completed: it cannot be used again.`;
  return null;
}
