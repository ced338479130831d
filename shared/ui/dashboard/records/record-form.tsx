import { useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { Dialog } from '../../common/components/dialog';
import { FormMessage } from '../../common/components/field';
import { type FormState, initForm, isDirty, setField, withServerErrors } from '../../common/form-state';
import { useSubmit } from '../../common/use-submit';
import { FieldInput } from './field-input';
import { isStale, problemText } from './http';
import type { EntitySpec, FormValue, FormValues, Loaded } from './types';
import { fieldsFor, toBody, toFormValues } from './values';

/**
 * Creates or edits one record in a modal dialog: fields from the spec, each with its label, hint
 * and the server's error for it. An edit sends only what changed, with If-Match: the version it
 * opened. A 412 (someone saved in between) says so and offers to reload their version.
 */
export function RecordForm<T extends { id: string }>(props: {
  spec: EntitySpec<T>;
  /** null: a new record. */
  opened: Loaded<T> | null;
  /** Why the record cannot be changed here; then the form only shows it. */
  readOnly: string | null;
  onSaved: (record: T) => void;
  onClose: () => void;
}) {
  const { spec } = props;
  const editing = props.opened !== null;
  const fields = fieldsFor(spec.fields, editing);
  const [opened, setOpened] = useState(props.opened);
  const [form, setForm] = useState<FormState<FormValues>>(() =>
    initForm(toFormValues(fields, props.opened?.record ?? null)),
  );
  const [message, setMessage] = useState<string | null>(null);
  const [stale, setStale] = useState(false);
  const shown = fields
    .filter((f) => !f.shownWhen || f.shownWhen(form.values))
    .map((f) => (editing && f.editOptions ? { ...f, options: f.editOptions(form.initial) } : f));

  // One submit for both sends (a save, or reading their version after a 412): one runs at a time.
  const sending = useSubmit((run: () => Promise<void>) => run());
  const busy = sending.busy;

  const save = (e: Event) => {
    e.preventDefault();
    const body = toBody(shown, form.values, form.initial, editing);
    if (editing && Object.keys(body).length === 0) {
      setMessage('Nothing changed: there is nothing to save.');
      return;
    }
    sending.run(() => send(body));
  };
  const send = async (body: Record<string, unknown>) => {
    setMessage(null);
    setStale(false);
    try {
      const saved = opened
        ? await spec.api.update!(opened.record, body, opened.etag)
        : await spec.api.create!(body);
      props.onSaved(saved);
    } catch (err) {
      if (isStale(err)) setStale(true);
      else if (err instanceof ProblemError && err.problem.errors?.length) {
        const placed = withServerErrors(form, err.fieldErrors());
        setForm(placed.state);
        setMessage(
          placed.unplaced.length > 0
            ? `${err.message} ${placed.unplaced.join('; ')}`
            : 'Some fields need a change: see the messages beside them.',
        );
      } else setMessage(problemText(err, spec.singular));
    }
  };

  /** Their version replaces what was typed here (which the message said). */
  const reload = () => {
    if (opened) sending.run(() => readTheirs(opened));
  };
  const readTheirs = async (mine: Loaded<T>) => {
    try {
      const fresh = await spec.api.load(mine.record);
      setOpened(fresh);
      setForm(initForm(toFormValues(fields, fresh.record)));
      setStale(false);
      setMessage(`Reloaded: this is the ${spec.singular} as it is now. Make your change again.`);
    } catch (err) {
      setMessage(problemText(err, spec.singular));
    }
  };

  const heading = props.readOnly
    ? `${spec.singular[0]!.toUpperCase()}${spec.singular.slice(1)}: ${spec.label(opened!.record)}`
    : editing
      ? `Edit ${spec.singular} ${spec.label(opened!.record)}`
      : `New ${spec.singular}`;
  const formId = `record-${spec.singular.replace(/\W+/g, '-')}`;
  return (
    <Dialog id={formId} class="record-form" title={heading} onClose={props.onClose}>
      <form onSubmit={save} noValidate>
        {props.readOnly && <p class="read-only-note">{props.readOnly}</p>}
        {stale && (
          <FormMessage kind="error">
            Someone else changed this {spec.singular} since you opened it.{' '}
            <button type="button" onClick={reload} disabled={busy}>
              Reload to see their change
            </button>{' '}
            (what you typed here is replaced by their version; make your change again).
          </FormMessage>
        )}
        {message && (
          <FormMessage kind={message.startsWith('Reloaded') ? 'ok' : 'error'}>{message}</FormMessage>
        )}
        <div class="record-fields">
          {shown.map((f) => (
            <FieldInput
              key={f.name}
              form={formId}
              field={f}
              value={form.values[f.name] ?? ''}
              error={form.errors[f.name]}
              disabled={Boolean(props.readOnly) || busy || (editing && Boolean(f.createOnly))}
              onInput={(v: FormValue) => setForm((s) => setField(s, f.name, v))}
            />
          ))}
        </div>
        <div class="actions">
          {!props.readOnly && (
            <button type="submit" class="button primary" disabled={busy}>
              {editing ? 'Save changes' : `Create ${spec.singular}`}
            </button>
          )}
          <button type="button" onClick={props.onClose}>
            {props.readOnly ? 'Close' : isDirty(form) ? 'Cancel (discard changes)' : 'Cancel'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
