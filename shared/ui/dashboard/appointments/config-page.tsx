import { useEffect, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { isStale, problemText } from '../records/http';
import { ClosedDates } from './closed-dates';
import {
  type ConfigBody,
  type ConfigForm,
  type FormErrors,
  formKeys,
  NUMBER_FIELDS,
  placeErrors,
  toBody,
  toForm,
} from './config-values';
import { loadConfig, type SchedulingConfig, saveConfig } from './data';
import { HoursEditor } from './hours-editor';

/**
 * The yard's scheduling config (docs/domain.md "Appointments"): whether it takes bookings, its
 * opening hours per weekday, closed dates and the numbers of the booking rules. Admins and
 * dispatchers change it; the others read the same form, disabled. A save sends the version read
 * (If-Match): someone else's newer save is never overwritten unseen.
 */
export function ConfigPage(props: {
  yardId: string;
  yardName: string;
  timeZone: string;
  readOnly: string | null;
}) {
  const [config, setConfig] = useState<SchedulingConfig | null>(null);
  const [form, setForm] = useState<ConfigForm | null>(null);
  const [errors, setErrors] = useState<FormErrors>({});
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string; stale?: boolean } | null>(
    null,
  );
  const [loadProblem, setLoadProblem] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    setLoadProblem(null);
    loadConfig(props.yardId).then(
      (c) => {
        if (!live) return;
        setConfig(c);
        setForm(toForm(c as ConfigBody));
        setErrors({});
      },
      (err: unknown) => live && setLoadProblem(problemText(err, 'scheduling config')),
    );
    return () => {
      live = false;
    };
  }, [props.yardId, generation]);

  const saving = useSubmit(async (body: ConfigBody) => {
    if (!config || !form) return;
    try {
      const saved = await saveConfig(props.yardId, config.version, body);
      setConfig(saved);
      setForm(toForm(saved as ConfigBody));
      setErrors({});
      setMessage({ kind: 'ok', text: `The scheduling config of ${props.yardName} is saved.` });
    } catch (err) {
      const { placed, rest } = placeErrors(
        err instanceof ProblemError ? err.fieldErrors() : {},
        formKeys(form),
      );
      setErrors(placed);
      const text =
        Object.keys(placed).length && !rest.length
          ? 'Nothing was saved: check the marked fields.'
          : [problemText(err, 'scheduling config'), ...rest].join(' ');
      setMessage({ kind: 'error', text, stale: isStale(err) });
      throw err;
    }
  });

  if (loadProblem)
    return <FormMessage kind="error">The scheduling config could not be read: {loadProblem}</FormMessage>;
  if (!form || !config) return <p class="muted">Loading the scheduling config…</p>;

  const submit = (e: Event) => {
    e.preventDefault();
    const { body, errors: local } = toBody(form);
    setErrors(local);
    if (Object.keys(local).length) {
      setMessage({ kind: 'error', text: 'Nothing was saved: check the marked fields.' });
      return;
    }
    setMessage(null);
    saving.run(body);
  };
  const edit = (next: ConfigForm) => {
    setForm(next);
    if (message?.kind === 'ok') setMessage(null);
  };

  return (
    <form class="appointment-config" onSubmit={submit} aria-labelledby="config-heading" noValidate>
      <h2 id="config-heading">Scheduling config</h2>
      {config.version === 0 && (
        <p class="read-only-note">
          {props.yardName} has no scheduling config yet: these are the defaults. Save to set it up.
        </p>
      )}
      {props.readOnly && <p class="read-only-note">{props.readOnly}</p>}
      {message && (
        <FormMessage kind={message.kind}>
          {message.text}{' '}
          {message.stale && (
            <button type="button" class="link" onClick={() => setGeneration((g) => g + 1)}>
              Reload the config
            </button>
          )}
        </FormMessage>
      )}
      <fieldset class="plain" disabled={Boolean(props.readOnly)}>
        <div class="panel enabled">
          <label class="check">
            <input
              type="checkbox"
              checked={form.enabled}
              aria-describedby="config-enabled-hint"
              onChange={(e) => edit({ ...form, enabled: e.currentTarget.checked })}
            />{' '}
            Take bookings in this yard
          </label>
          <small id="config-enabled-hint" class="hint">
            Off: nobody can book here (the office neither); bookings already made stay.
          </small>
          {errors.enabled && <small class="error">{errors.enabled}</small>}
        </div>
        <HoursEditor
          hours={form.hours}
          errors={errors}
          timeZone={props.timeZone}
          onChange={(hours) => edit({ ...form, hours })}
        />
        <ClosedDates
          dates={form.closedDates}
          {...(errors.closedDates ? { error: errors.closedDates } : {})}
          onChange={(closedDates) => edit({ ...form, closedDates })}
        />
        <fieldset class="panel numbers">
          <legend>Booking rules</legend>
          <div class="form-grid">
            {NUMBER_FIELDS.map((n) => {
              const id = `config-${n.name}`;
              return (
                <Field key={n.name} id={id} label={n.label} error={errors[n.name]} hint={n.hint}>
                  <input
                    {...describedBy(id, errors[n.name], true)}
                    type="text"
                    inputMode="numeric"
                    autoComplete="off"
                    value={form.numbers[n.name]}
                    onInput={(e) => {
                      const value = e.currentTarget.value;
                      edit({ ...form, numbers: { ...form.numbers, [n.name]: value } });
                      setErrors(({ [n.name]: _gone, ...rest }) => rest);
                    }}
                  />
                </Field>
              );
            })}
          </div>
        </fieldset>
        {!props.readOnly && (
          <div class="actions">
            <button type="submit" class="primary" disabled={saving.busy}>
              {saving.busy ? 'Saving…' : 'Save scheduling config'}
            </button>
          </div>
        )}
      </fieldset>
    </form>
  );
}
