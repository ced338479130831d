import type { Ref } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field } from '../../common/components/field';
import { compactCode, normalText } from '../../common/type-ahead-rank';
import { findByCode, loadTypes } from '../appointments/data';
import { yards } from '../yard';
import { fillFromAppointment, type Known, matchSummary, normalCode } from './from-appointment';
import { type CheckInValues, driverPick } from './model';
import { searchDrivers, searchTrailers, searchTrucks } from './search';

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

/**
 * The known records the booking's numbers name, so the form shows them as known (in yard, blocked)
 * and the movement links them by id. Each lookup that fails or finds nothing leaves the typed text.
 */
async function knownUnits(a: Schemas['Appointment'], signal: AbortSignal): Promise<Known> {
  const none = <T,>(p: Promise<T>) => p.catch(() => null);
  const same = (x: string | null | undefined, y: string | null | undefined) =>
    Boolean(x && y && compactCode(x) === compactCode(y));
  const [carrier, trailers, trucks, drivers, types, doors] = await Promise.all([
    none(call(api.GET('/api/carrier/{id}', { params: { path: { id: a.carrierId } }, signal }))),
    a.trailerNumber ? none(searchTrailers(a.trailerNumber, signal)) : null,
    a.truckPlate ? none(searchTrucks(a.truckPlate, signal)) : null,
    a.driverPhone || a.driverName ? none(searchDrivers(a.driverPhone ?? a.driverName ?? '', signal)) : null,
    none(loadTypes(a.yardId)),
    none(
      call(
        api.GET('/api/yard/{id}/location', {
          params: { path: { id: a.yardId }, query: { kind: 'door', free: true, limit: 500 } },
          signal,
        }),
      ),
    ),
  ]);
  // A number two carriers share: the booked carrier's unit first.
  const ours = <T extends { carrierId: string | null }>(items: T[]) =>
    items.find((i) => i.carrierId === a.carrierId) ?? items[0];
  const trailer = ours((trailers ?? []).filter((t) => same(t.number, a.trailerNumber)));
  const truck = ours((trucks ?? []).filter((t) => same(t.plate, a.truckPlate)));
  const driver = ours(
    (drivers ?? []).filter(
      (d) =>
        (a.driverPhone && same(d.phone, a.driverPhone)) ||
        (a.driverName && normalText(`${d.firstName} ${d.lastName}`) === normalText(a.driverName)),
    ),
  );
  return {
    carrier: carrier
      ? { id: carrier.id, name: carrier.name, scac: carrier.scac, status: carrier.status }
      : null,
    trailer: trailer
      ? { id: trailer.id, number: trailer.number, carrierId: trailer.carrierId, inYard: trailer.inYard }
      : null,
    truck: truck
      ? { id: truck.id, plate: truck.plate ?? '', carrierId: truck.carrierId, inYard: truck.inYard }
      : null,
    driver: driver ? driverPick(driver) : null,
    direction: types?.get(a.loadTypeId)?.direction ?? null,
    doorFree: Boolean(doors?.items.some((d) => d.id === a.doorId)),
  };
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
