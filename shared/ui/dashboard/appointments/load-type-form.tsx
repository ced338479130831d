import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { problemText } from '../records/http';
import { createLoadType, type LoadType, type Location, updateLoadType } from './data';
import { DIRECTION_WORDS } from './load-type-words';

type Direction = LoadType['direction'];

interface Values {
  name: string;
  direction: Direction;
  durationMinutes: string;
  doorIds: string[];
  carrierVisible: boolean;
}

/**
 * A load type's form (new or edit): name, direction, how long the door is taken, the doors it may
 * use (none ticked = every door of the yard) and whether carriers may book it themselves. The
 * server's field errors land beside their fields.
 */
export function LoadTypeForm(props: {
  yardId: string;
  loadType: LoadType | null;
  doors: Location[];
  onSaved: (lt: LoadType) => void;
  onCancel: () => void;
}) {
  const lt = props.loadType;
  const [values, setValues] = useState<Values>({
    name: lt?.name ?? '',
    direction: lt?.direction ?? 'both',
    durationMinutes: lt ? String(lt.durationMinutes) : '60',
    doorIds: lt?.doorIds ?? [],
    carrierVisible: lt?.carrierVisible ?? true,
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  // Before the browser paints: focus moving after typing started would send keys elsewhere.
  useLayoutEffect(() => form.current?.querySelector('input')?.focus(), []);
  const set = <K extends keyof Values>(name: K, value: Values[K]) => {
    setValues((v) => ({ ...v, [name]: value }));
    setErrors(({ [name]: _gone, ...rest }) => rest);
  };

  const saving = useSubmit(async (body: Omit<Values, 'durationMinutes'> & { durationMinutes: number }) => {
    try {
      const saved = lt
        ? await updateLoadType(lt, body)
        : await createLoadType({ ...body, yardId: props.yardId });
      props.onSaved(saved);
    } catch (err) {
      const fields = err instanceof ProblemError ? err.fieldErrors() : {};
      const placed: Record<string, string> = {};
      const rest: string[] = [];
      for (const [path, text] of Object.entries(fields)) {
        const key = path.split('.')[0] as string;
        if (key in values) placed[key] ??= text;
        else rest.push(text);
      }
      setErrors(placed);
      setMessage(
        Object.keys(placed).length && !rest.length
          ? 'Nothing was saved: check the marked fields.'
          : [problemText(err, 'load type'), ...rest].join(' '),
      );
      throw err;
    }
  });

  const submit = (e: Event) => {
    e.preventDefault();
    const local: Record<string, string> = {};
    if (!values.name.trim()) local.name = 'Give the load type a name, e.g. Live unload.';
    if (!/^\d+$/.test(values.durationMinutes.trim()))
      local.durationMinutes = 'Type a whole number of minutes, e.g. 60.';
    setErrors(local);
    setMessage(Object.keys(local).length ? 'Nothing was saved: check the marked fields.' : null);
    if (Object.keys(local).length) return;
    saving.run({
      ...values,
      name: values.name.trim(),
      durationMinutes: Number(values.durationMinutes.trim()),
    });
  };
  const toggleDoor = (id: string, on: boolean) =>
    set('doorIds', on ? [...values.doorIds, id] : values.doorIds.filter((d) => d !== id));

  const heading = lt ? `Edit load type ${lt.name}` : 'New load type';
  return (
    <form ref={form} class="panel load-type-form" onSubmit={submit} aria-label={heading} noValidate>
      <h3>{heading}</h3>
      {message && <FormMessage kind="error">{message}</FormMessage>}
      <div class="form-grid">
        <Field id="lt-name" label="Name" error={errors.name}>
          <input
            {...describedBy('lt-name', errors.name)}
            value={values.name}
            maxLength={80}
            autoComplete="off"
            onInput={(e) => set('name', e.currentTarget.value)}
          />
        </Field>
        <Field id="lt-direction" label="Direction" error={errors.direction}>
          <select
            {...describedBy('lt-direction', errors.direction)}
            value={values.direction}
            onChange={(e) => set('direction', e.currentTarget.value as Direction)}
          >
            {Object.entries(DIRECTION_WORDS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field
          id="lt-duration"
          label="Door time (minutes)"
          error={errors.durationMinutes}
          hint="How long one appointment takes the door: 5 to 1440."
        >
          <input
            {...describedBy('lt-duration', errors.durationMinutes, true)}
            inputMode="numeric"
            autoComplete="off"
            value={values.durationMinutes}
            onInput={(e) => set('durationMinutes', e.currentTarget.value)}
          />
        </Field>
      </div>
      <fieldset class="doors-pick" aria-describedby="lt-doors-hint">
        <legend>Allowed doors</legend>
        <small id="lt-doors-hint" class="hint">
          {values.doorIds.length === 0 ? 'None ticked: every door of the yard.' : 'Only the ticked doors.'}
        </small>
        {props.doors.length === 0 && (
          <p class="muted">This yard has no doors yet (Master data, Locations).</p>
        )}
        <div class="door-boxes">
          {props.doors.map((d) => (
            <label key={d.id} class="check">
              <input
                type="checkbox"
                checked={values.doorIds.includes(d.id)}
                onChange={(e) => toggleDoor(d.id, e.currentTarget.checked)}
              />{' '}
              {d.name}
            </label>
          ))}
        </div>
        {errors.doorIds && (
          <small class="error" role="alert">
            {errors.doorIds}
          </small>
        )}
      </fieldset>
      <label class="check">
        <input
          type="checkbox"
          checked={values.carrierVisible}
          aria-describedby="lt-visible-hint"
          onChange={(e) => set('carrierVisible', e.currentTarget.checked)}
        />{' '}
        Carriers may book it
      </label>
      <small id="lt-visible-hint" class="hint block">
        Off: only the office books this load type.
      </small>
      <div class="actions">
        <button type="submit" class="primary" disabled={saving.busy}>
          {saving.busy ? 'Saving…' : 'Save load type'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
