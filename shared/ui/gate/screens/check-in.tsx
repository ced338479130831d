import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ProblemError } from '../../common/api/problem';
import { canWorkGate, session } from '../../common/auth';
import { Dialog } from '../../common/components/dialog';
import { initForm, setFields, withServerErrors } from '../../common/form-state';
import { useShortcuts } from '../../common/shortcuts';
import { yardTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import { AppointmentCodeField } from '../check-in/appointment-field';
import { useAppointmentCode } from '../check-in/appointment-lookup';
import { Confirmation, type Confirmed } from '../check-in/confirmation';
import { DriverField, useCheckRequired, useDriverCheck } from '../check-in/driver-field';
import { CheckInMessages } from '../check-in/form-messages';
import {
  ALIASES,
  type CheckInValues,
  driverPick,
  EMPTY,
  loadDraft,
  movementBody,
  saveDraft,
} from '../check-in/model';
import type { NewUnitQuestion } from '../check-in/new-unit';
import { readRefusal } from '../check-in/refusal';
import { SpotField, useDeskGate, useFreeSpots, useSuggestedSpot } from '../check-in/spot-gate';
import { SubmitRow } from '../check-in/submit-row';
import { CarrierField, LoadSealFields, TrailerField, TruckField } from '../check-in/unit-fields';
import { RegisterDriverForm } from '../drivers/register-form';
import { recordMovement } from '../movements/data';
import { timeZone, yard } from '../yard';
import '../check-in/check-in.css';

/**
 * Check-in on one screen: the appointment first (a scanned code, or a ref or trailer number of
 * the day's appointments, fills the form from the booking and suggests its door; none is a
 * walk-in), trailer, truck, carrier, driver (admission check at once), load, seal, a suggested free spot, and one action that records the movement,
 * takes the gate's pictures and opens the gate. The draft lives in sessionStorage; the screen
 * stays mounted under the login dialog when the session ends. `?code=` (from Expected arrivals)
 * looks that code up at once.
 */
export function CheckIn() {
  const yardId = yard.value!.id;
  const [form, setForm] = useState(loadDraft);
  const [problem, setProblem] = useState<string[]>([]);
  const [conflict, setConflict] = useState<string | null>(null);
  const [newUnit, setNewUnit] = useState<NewUnitQuestion | null>(null);
  const [confirmed, setConfirmed] = useState<Confirmed | null>(null);
  const [registering, setRegistering] = useState(false);
  const [checkReload, setCheckReload] = useState(0);
  const [takenSpot, setTakenSpot] = useState<string | null>(null);
  const [gateId, chooseGate, inbound] = useDeskGate();
  const [gateError, setGateError] = useState<string | undefined>();
  const firstField = useRef<HTMLInputElement>(null);
  const v = form.values;
  const check = useDriverCheck(v.driver?.id, checkReload);
  const required = useCheckRequired();
  const free = useFreeSpots(yardId);
  const mayWork = canWorkGate(session.principal.value?.role);
  const refused = check.kind === 'done' && !check.allowed && required;
  const codes = useAppointmentCode(yardId, v, (patch) => set(patch));
  const matched = v.appointment;
  const { query, route } = useLocation();
  const time = (iso: string) => yardTime(iso, timeZone.value);

  const set = (patch: Partial<CheckInValues>) => {
    setForm((f) => setFields(f, patch));
    setConflict(null);
    setNewUnit(null);
    setProblem([]); // it spoke of the last attempt; the field errors stay until their field is edited
  };
  // Saved as soon as the screen shows the change (a layout effect, not a later one): a reload or a
  // closed tab right after a keystroke still finds it.
  useLayoutEffect(() => saveDraft(form), [form]);
  useEffect(() => firstField.current?.focus(), []);
  useEffect(() => {
    if (!query.code) return;
    set({ code: query.code, appointment: null });
    void codes.find(query.code);
    route('/gate/', true); // a reload later does not look it up again
  }, [query.code]);

  const door = matched && { id: matched.doorId, name: matched.doorName, free: matched.doorFree };
  const spotName = useSuggestedSpot(free, form, setForm, door, setTakenSpot);

  const recording = useSubmit(async (force: boolean, confirmNew: boolean) => {
    setProblem([]);
    setGateError(undefined);
    const gate = inbound.find((g) => g.id === gateId);
    const body = movementBody(v, {
      yardId,
      gateId: gate?.id ?? null,
      overrideNeeded: refused,
      force,
      confirmNew,
    });
    try {
      const movement = await recordMovement(body);
      setConfirmed({
        movement,
        labels: {
          unit: [v.trailerText.trim(), v.truckText.trim()].filter(Boolean).join(' / '),
          driver: v.driver?.name ?? null,
          spot: spotName(v.locationId) ?? null,
          gate: gate?.name ?? null,
          appointment: matched && `${matched.code}, ${matched.carrierName} at ${time(matched.startAt)}`,
          trailer: v.trailerText.trim() || null,
          truck: v.truckText.trim() || null,
          code: matched?.code ?? null,
        },
      });
      if (v.locationId) free.drop(v.locationId);
      setForm(initForm(EMPTY));
      codes.reset();
      setConflict(null);
      setNewUnit(null);
      setTakenSpot(null);
      firstField.current?.focus();
    } catch (err) {
      if (err instanceof ProblemError) onProblem(err);
      throw err;
    }
  });
  const finding = codes.lookup.kind === 'finding';
  const busy = recording.busy || finding;
  const submit = async (force = false, confirmNew = false) => {
    if (!mayWork || finding) return;
    if (v.code.trim() && !matched) {
      // A code that matched nothing is not quietly dropped: the clerk decides (walk-in or correct it).
      setProblem([
        codes.lookup.kind === 'choose'
          ? 'Choose the appointment from the list under the appointment field, or clear it to check in a walk-in.'
          : 'The appointment code matches no appointment: correct it, or clear it to check in a walk-in.',
      ]);
      firstField.current?.focus();
      return;
    }
    await recording.run(force, confirmNew);
  };

  const onProblem = (err: ProblemError) => {
    const placed = withServerErrors(form, err.fieldErrors(), ALIASES);
    setForm(placed.state);
    const refusal = readRefusal(err, yardId, Object.keys(placed.state.errors).length, placed.unplaced);
    if (refusal.kind === 'conflict') setConflict(refusal.detail);
    else if (refusal.kind === 'new-unit') setNewUnit(refusal.question);
    else if (refusal.kind === 'gate') setGateError(refusal.message);
    else {
      if (refusal.recheckDriver) setCheckReload((n) => n + 1); // the check changed: show it again
      setProblem(refusal.lines);
    }
  };

  const latest = useRef(submit);
  latest.current = submit;
  const shortcuts = useMemo(
    () => ({ 'Ctrl+Enter': () => void latest.current(), F2: () => void latest.current() }),
    [],
  );
  useShortcuts(shortcuts);

  const clear = () => {
    setForm(initForm(EMPTY));
    codes.reset();
    setProblem([]);
    setConflict(null);
    setNewUnit(null);
    firstField.current?.focus();
  };

  return (
    <div class="check-in">
      <form
        class="panel check-in-form"
        aria-labelledby="ci-heading"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h1 id="ci-heading">Check in</h1>
        <CheckInMessages
          role={session.principal.value?.role}
          mayWork={mayWork}
          problem={problem}
          conflict={conflict}
          newUnit={newUnit}
          typedTrailer={v.trailerText.trim()}
          busy={busy}
          onRecordAnyway={() => void submit(true)}
          onUseCorrected={(trailerText) => set({ trailerText })}
          onConfirmNew={() => void submit(false, true)}
        />
        <AppointmentCodeField
          values={v}
          error={form.errors.code}
          lookup={codes.lookup}
          inputRef={firstField}
          time={time}
          onText={(code) => {
            set({ code, appointment: null });
            codes.reset();
          }}
          onFind={(code) => void codes.find(code)}
          onPick={(a) => void codes.pick(a)}
          onClose={codes.reset}
        />
        <div class="grid-2">
          <TrailerField values={v} errors={form.errors} set={set} />
          <TruckField values={v} errors={form.errors} set={set} />
        </div>
        <CarrierField
          id="ci-carrier"
          text={v.carrierText}
          carrier={v.carrier}
          error={form.errors.carrierText}
          onChange={(carrierText, carrier) => set({ carrierText, carrier })}
        />
        <DriverField
          values={v}
          errors={form.errors}
          set={set}
          check={check}
          required={required}
          canOverride={mayWork}
          onRegister={() => setRegistering(true)}
        />
        <div class="grid-3">
          <LoadSealFields values={v} errors={form.errors} set={set} />
          <SpotField
            value={v.locationId}
            error={form.errors.locationId}
            spots={free.spots}
            failed={free.failed}
            taken={takenSpot}
            door={door}
            onChange={(locationId) => {
              setTakenSpot(null);
              set({ locationId });
            }}
          />
        </div>
        <SubmitRow
          gateId={gateId}
          gates={inbound}
          gateError={gateError}
          onGate={chooseGate}
          finding={finding}
          busy={busy}
          mayWork={mayWork}
          onClear={clear}
        />
      </form>
      <div class="check-in-side">
        {confirmed ? (
          <Confirmation
            confirmed={confirmed}
            timeZone={timeZone.value}
            onDismiss={() => setConfirmed(null)}
          />
        ) : (
          <p class="muted panel">The last check-in, its gate and its pictures show here.</p>
        )}
      </div>
      {registering && (
        <Dialog id="register-driver" labelledBy="dr-heading" onClose={() => setRegistering(false)}>
          <RegisterDriverForm
            initialName={v.driverText}
            onCancel={() => setRegistering(false)}
            onCreated={(d) => {
              setRegistering(false);
              set({ driver: driverPick(d), driverText: `${d.firstName} ${d.lastName}` });
            }}
          />
        </Dialog>
      )}
    </div>
  );
}
