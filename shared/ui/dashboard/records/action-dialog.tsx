import { useEffect, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { Dialog } from '../../common/components/dialog';
import { FormMessage } from '../../common/components/field';
import { type FormState, initForm, setField, withServerErrors } from '../../common/form-state';
import { useSubmit } from '../../common/use-submit';
import { FieldInput } from './field-input';
import { problemText } from './http';
import type { EntitySpec, FormValue, FormValues, Loaded, RowAction } from './types';
import { toBody, toFormValues } from './values';

/**
 * Confirms one row action (delete, disable, revoke, reset a password) in a modal dialog, asking
 * for the action's fields if it has any. The record is read afresh on opening, and the action sends
 * that version: a change made meanwhile is refused (412), not overwritten.
 */
export function ActionDialog<T extends { id: string }>(props: {
  spec: EntitySpec<T>;
  action: RowAction<T>;
  record: T;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const { spec, action } = props;
  const fields = action.fields ?? [];
  const [loaded, setLoaded] = useState<Loaded<T> | null>(null);
  const [form, setForm] = useState<FormState<FormValues>>(() => initForm(toFormValues(fields, null)));
  const [message, setMessage] = useState<string | null>(null);
  const load = () =>
    spec.api.load(props.record).then(setLoaded, (err) => setMessage(problemText(err, spec.singular)));
  useEffect(() => {
    load();
  }, []);

  const running = useSubmit(async (version: Loaded<T>) => {
    setMessage(null);
    try {
      await action.run(version, toBody(fields, form.values, form.initial, false));
      props.onDone(action.done(version.record));
    } catch (err) {
      if (err instanceof ProblemError && err.status === 412) await load();
      if (err instanceof ProblemError && err.problem.errors?.length) {
        const placed = withServerErrors(form, err.fieldErrors());
        setForm(placed.state);
        if (placed.unplaced.length > 0) setMessage(`${err.message} ${placed.unplaced.join('; ')}`);
      } else setMessage(problemText(err, spec.singular));
    }
  });
  const busy = running.busy;
  const confirm = (e: Event) => {
    e.preventDefault();
    if (loaded) running.run(loaded);
  };

  const id = `action-${action.label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <Dialog id={id} class="record-action" title={action.confirm(props.record)} onClose={props.onClose}>
      <form onSubmit={confirm} noValidate>
        {message && <FormMessage kind="error">{message}</FormMessage>}
        {fields.map((f) => (
          <FieldInput
            key={f.name}
            form={id}
            field={f}
            value={form.values[f.name] ?? ''}
            error={form.errors[f.name]}
            disabled={busy}
            onInput={(v: FormValue) => setForm((s) => setField(s, f.name, v))}
          />
        ))}
        <div class="actions">
          <button
            type="submit"
            class={action.danger ? 'danger' : 'button primary'}
            disabled={busy || !loaded}
          >
            {action.label}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
