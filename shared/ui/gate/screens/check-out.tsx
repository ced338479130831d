import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { problemText } from '../../common/api/problem-text';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { onLive } from '../../common/live';
import { useShortcuts } from '../../common/shortcuts';
import { useSubmit } from '../../common/use-submit';
import { CheckOutDone } from '../check-out/confirmation';
import { checkOutBody, type YardUnit } from '../check-out/form';
import { SealCheck } from '../check-out/seal-check';
import { UnitSearch } from '../check-out/unit-search';
import { fieldOf, yardUnits } from '../check-out/units';
import { loadYardPicture, loadYardTrucks } from '../inventory/data';
import { recordMovement } from '../movements/data';
import { gates, yard } from '../yard';
import '../check-out/check-out.css';

/**
 * Check-out: find the unit (type-ahead, or "Check out" in the yard list: ?trailer=<id>), verify the
 * seal, then one action records the movement, opens the gate and takes its pictures.
 */
export function CheckOut() {
  const yardId = yard.value!.id;
  const { query } = useLocation();
  const [units, setUnits] = useState<YardUnit[] | null>(null);
  const [loadProblem, setLoadProblem] = useState<string | null>(null);
  const [unit, setUnit] = useState<YardUnit | null>(null);
  const [truckPlate, setTruckPlate] = useState('');
  const [seal, setSeal] = useState('');
  const [judged, setJudged] = useState(false);
  const [acknowledged, setAcknowledged] = useState(false);
  const [notes, setNotes] = useState('');
  const outGates = gates.value.filter((g) => g.yardId === yardId && g.direction !== 'in');
  const [gateId, setGateId] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<{
    movement: Schemas['MovementCreated'];
    unit: string;
    gate: string;
  } | null>(null);
  const ackRef = useRef<HTMLInputElement>(null);
  const sealRef = useRef<HTMLDivElement>(null);
  const gate = outGates.find((g) => g.id === gateId) ?? outGates[0];

  const reload = useCallback(() => {
    Promise.all([loadYardPicture(yardId), loadYardTrucks(yardId)]).then(
      ([picture, trucks]) => {
        setUnits(yardUnits(picture, trucks));
        setLoadProblem(null);
      },
      (err) => setLoadProblem(problemText(err)),
    );
  }, [yardId]);
  useEffect(() => {
    reload();
    return onLive(['movement.created', 'sync.applied'], reload, reload);
  }, [reload]);
  // Opened from the yard list with a unit chosen (?trailer=<id> or ?truck=<id>).
  // Used once: after that the clerk (or a live reload of the units) must not bring it back.
  const wanted = query.trailer ?? query.truck;
  const wantedUsed = useRef<string | null>(null);
  useEffect(() => {
    if (wanted && units && wantedUsed.current !== wanted) {
      wantedUsed.current = wanted;
      const u = units.find((x) => x.id === wanted);
      if (u) choose(u);
      else setProblem('That unit is no longer in this yard. Search for it below.');
    }
  }, [wanted, units]);

  const choose = (u: YardUnit | null) => {
    setUnit(u);
    setSeal('');
    setJudged(false);
    setAcknowledged(false);
    setErrors({});
    setProblem(null);
    setDone(null);
    if (u) setTimeout(() => sealRef.current?.querySelector('input')?.focus(), 0);
  };

  // The answer is placed here (on its field, or above the form); the hook keeps one run at a time.
  const sending = useSubmit(
    async (body: Schemas['MovementCreate'], chosen: YardUnit, through: { name: string }) => {
      setErrors({});
      setProblem(null);
      try {
        const movement = await recordMovement(body);
        setDone({ movement, unit: chosen.label, gate: through.name });
        setUnit(null);
        setTruckPlate('');
        setNotes('');
        setTimeout(() => document.getElementById('done-heading')?.focus(), 0);
      } catch (err) {
        if (!(err instanceof ProblemError)) return setProblem(problemText(err));
        const byField: Record<string, string> = {};
        for (const [path, message] of Object.entries(err.fieldErrors()))
          byField[fieldOf(path, err.code)] = message;
        const field = fieldOf('_', err.code, err.problem.unit);
        if (field !== '_') byField[field] = err.message;
        setErrors(byField);
        const shown = ['unit', 'sealNumber', 'truck.plate', 'gateId', 'notes'].some((f) => byField[f]);
        if (!shown) setProblem(problemText(err));
      }
    },
  );
  const busy = sending.busy;
  const submit = async (e?: Event) => {
    e?.preventDefault();
    if (!unit || busy) return;
    if (!gate) return setProblem('This yard has no gate for check-out. An admin adds one under gates.');
    setJudged(true);
    const built = checkOutBody({ yardId, gateId: gate.id, unit, truckPlate, seal, acknowledged, notes });
    if ('blocked' in built) {
      setErrors({ ack: 'Tick this to check out with this seal, or correct the seal number above.' });
      setTimeout(() => ackRef.current?.focus(), 0);
      return;
    }
    await sending.run(built.body, unit, gate);
  };
  const shortcuts = useMemo(() => ({ 'Ctrl+Enter': () => void submit() }), [submit]);
  useShortcuts(shortcuts);

  const trucks = (units ?? []).filter((u) => u.kind === 'truck');
  return (
    <section class="check-out" aria-labelledby="check-out-heading">
      <h1 id="check-out-heading">Check out</h1>
      {loadProblem && (
        <FormMessage kind="error">The yard's units could not be loaded: {loadProblem}</FormMessage>
      )}
      {done && <CheckOutDone {...done} onNext={() => choose(null)} />}
      {!done && (
        <form class="panel check-out-form" onSubmit={submit} noValidate>
          {problem && <FormMessage kind="error">{problem}</FormMessage>}
          {!unit ? (
            units ? (
              <UnitSearch units={units} onPick={choose} error={errors.unit} autoFocus />
            ) : (
              <p class="muted">Loading the units in the yard…</p>
            )
          ) : (
            <div class="chosen">
              <div>
                <span class="muted">{unit.kind === 'trailer' ? 'Trailer' : 'Truck'}</span>
                <strong class="unit mono">{unit.label}</strong>
                <span class="muted">{unit.detail}</span>
                {errors.unit && (
                  <small class="error" role="alert">
                    {errors.unit}
                  </small>
                )}
              </div>
              <button type="button" class="link" onClick={() => choose(null)}>
                Choose another unit
              </button>
            </div>
          )}
          {unit && (
            <>
              {unit.kind === 'trailer' && (
                <div ref={sealRef}>
                  <SealCheck
                    recorded={unit.trailer.sealNumber}
                    seal={seal}
                    onSeal={(v) => {
                      setSeal(v);
                      setAcknowledged(false);
                    }}
                    judged={judged}
                    acknowledged={acknowledged}
                    onAcknowledged={setAcknowledged}
                    sealError={errors.sealNumber}
                    ackError={acknowledged ? undefined : errors.ack}
                    ackRef={ackRef}
                  />
                </div>
              )}
              <div class="row">
                {unit.kind === 'trailer' && (
                  <Field id="truck-plate" label="Truck plate (optional)" error={errors['truck.plate']}>
                    <input
                      {...describedBy('truck-plate', errors['truck.plate'])}
                      list="yard-trucks"
                      class="mono"
                      autoComplete="off"
                      value={truckPlate}
                      onInput={(e) => setTruckPlate(e.currentTarget.value)}
                    />
                    <datalist id="yard-trucks">
                      {trucks.map((t) => (
                        <option key={t.id} value={t.label} />
                      ))}
                    </datalist>
                  </Field>
                )}
                <Field id="gate" label="Gate" error={errors.gateId}>
                  <select
                    {...describedBy('gate', errors.gateId)}
                    value={gate?.id ?? ''}
                    onChange={(e) => setGateId(e.currentTarget.value)}
                  >
                    {outGates.map((g) => (
                      <option key={g.id} value={g.id}>
                        {g.name}
                      </option>
                    ))}
                  </select>
                </Field>
              </div>
              <Field id="notes" label="Note (optional)" error={errors.notes}>
                <input
                  {...describedBy('notes', errors.notes)}
                  value={notes}
                  onInput={(e) => setNotes(e.currentTarget.value)}
                />
              </Field>
              <button type="submit" class="primary big" disabled={busy} aria-keyshortcuts="Control+Enter">
                {busy ? 'Checking out and opening…' : 'Check out and open gate'} <kbd>Ctrl+Enter</kbd>
              </button>
            </>
          )}
        </form>
      )}
    </section>
  );
}
