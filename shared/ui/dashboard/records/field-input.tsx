import { useEffect } from 'preact/hooks';
import { describedBy, Field } from '../../common/components/field';
import { yards } from '../scope';
import { carriers, loadCarriers } from './lookups';
import type { FieldSpec, FormValue, Lookup } from './types';

/** One field of a record form, by its kind: label, input, hint and the server's error for it. */
export function FieldInput(props: {
  form: string;
  field: FieldSpec;
  value: FormValue;
  error: string | undefined;
  disabled: boolean;
  onInput: (value: FormValue) => void;
}) {
  const { field: f, value, error, disabled } = props;
  const id = `${props.form}-${f.name.replace(/\./g, '-')}`;
  const kind = f.kind ?? 'text';
  const aria = describedBy(id, error, Boolean(f.hint));
  const text = typeof value === 'string' ? value : '';
  const label = f.required ? `${f.label} (required)` : f.label;
  if (kind === 'checkbox') {
    return (
      <div class={error ? 'field check has-error' : 'field check'}>
        <label for={id}>
          <input
            type="checkbox"
            {...aria}
            checked={value === true}
            disabled={disabled}
            onChange={(e) => props.onInput(e.currentTarget.checked)}
          />{' '}
          {f.label}
        </label>
        {f.hint && !error && (
          <small id={`${id}-hint`} class="hint">
            {f.hint}
          </small>
        )}
        {error && (
          <small id={`${id}-error`} class="error" role="alert">
            {error}
          </small>
        )}
      </div>
    );
  }
  if (kind === 'yards') return <YardScope {...props} id={id} />;
  let input: preact.JSX.Element;
  if (kind === 'select' || kind === 'carrier' || kind === 'lookup') {
    const none = kind === 'carrier' ? 'No carrier' : (f.lookup?.none ?? '—');
    input = (
      <select
        {...aria}
        value={text}
        disabled={disabled}
        onChange={(e) => props.onInput(e.currentTarget.value)}
      >
        {!f.required && <option value="">{none}</option>}
        {f.required && text === '' && <option value="">Choose…</option>}
        {kind === 'carrier' ? (
          <CarrierOptions />
        ) : kind === 'lookup' && f.lookup ? (
          <LookupOptions lookup={f.lookup} />
        ) : (
          f.options?.map((o) => <option value={o.value}>{o.label}</option>)
        )}
      </select>
    );
  } else if (kind === 'textarea' || kind === 'json') {
    input = (
      <textarea
        {...aria}
        class={kind === 'json' ? 'code' : undefined}
        rows={kind === 'json' ? 10 : 3}
        value={text}
        disabled={disabled}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    );
  } else {
    input = (
      <input
        {...aria}
        type={(kind === 'number' ? 'text' : kind) as 'text'}
        inputMode={kind === 'number' ? 'numeric' : undefined}
        autoComplete={kind === 'password' ? 'new-password' : 'off'}
        value={text}
        disabled={disabled}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    );
  }
  return (
    <Field id={id} label={label} error={error} {...(f.hint ? { hint: f.hint } : {})}>
      {input}
    </Field>
  );
}

function CarrierOptions() {
  useEffect(() => {
    loadCarriers();
  }, []);
  return (
    <>
      {(carriers.value ?? []).map((c) => (
        <option value={c.id}>
          {c.name}
          {c.scac ? ` (${c.scac})` : ''}
        </option>
      ))}
    </>
  );
}

function LookupOptions(props: { lookup: Lookup }) {
  useEffect(() => {
    props.lookup.load();
  }, [props.lookup]);
  return (
    <>
      {props.lookup.options().map((o) => (
        <option value={o.value}>{o.label}</option>
      ))}
    </>
  );
}

/** A yard scope: "every yard", or the yards ticked (API: yardIds null = every yard). */
function YardScope(props: {
  id: string;
  field: FieldSpec;
  value: FormValue;
  error: string | undefined;
  disabled: boolean;
  onInput: (value: FormValue) => void;
}) {
  const chosen = Array.isArray(props.value) ? props.value : null;
  const toggle = (yardId: string, on: boolean) => {
    const now = new Set(chosen ?? []);
    if (on) now.add(yardId);
    else now.delete(yardId);
    props.onInput([...now]);
  };
  return (
    <fieldset
      class={props.error ? 'field yards has-error' : 'field yards'}
      aria-describedby={props.error ? `${props.id}-error` : undefined}
    >
      <legend>{props.field.label}</legend>
      <label>
        <input
          type="checkbox"
          checked={chosen === null}
          disabled={props.disabled}
          onChange={(e) => props.onInput(e.currentTarget.checked ? null : [])}
        />{' '}
        Every yard
      </label>
      {chosen !== null &&
        yards.value.map((y) => (
          <label key={y.id}>
            <input
              type="checkbox"
              checked={chosen.includes(y.id)}
              disabled={props.disabled}
              onChange={(e) => toggle(y.id, e.currentTarget.checked)}
            />{' '}
            {y.name} ({y.code})
          </label>
        ))}
      {props.field.hint && !props.error && <small class="hint">{props.field.hint}</small>}
      {props.error && (
        <small id={`${props.id}-error`} class="error" role="alert">
          {props.error}
        </small>
      )}
    </fieldset>
  );
}
