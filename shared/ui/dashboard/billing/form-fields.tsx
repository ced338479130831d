import { describedBy, Field } from '../../common/components/field';
import type { Errors, FieldSpec, Texts } from './form-values';

/** A form's fields, each labelled with its error or hint underneath (ids `${prefix}-${name}`). */
export function FormFields(props: {
  prefix: string;
  specs: FieldSpec[];
  values: Texts;
  errors: Errors;
  currency: string;
  onInput: (name: string, value: string) => void;
}) {
  return (
    <>
      {props.specs.map((s) => {
        const id = `${props.prefix}-${s.name}`;
        const error = props.errors[s.name];
        const common = {
          ...describedBy(id, error, Boolean(s.hint)),
          name: s.name,
          value: props.values[s.name] ?? '',
          placeholder: s.placeholder,
          'aria-required': s.required ? ('true' as const) : undefined,
          onInput: (e: Event) => props.onInput(s.name, (e.currentTarget as HTMLInputElement).value),
        };
        const unit = s.kind === 'money' ? ` (${props.currency})` : s.kind === 'percent' ? ' (%)' : '';
        return (
          <Field
            key={s.name}
            id={id}
            label={`${s.label}${unit}`}
            error={error}
            {...(s.hint ? { hint: s.hint } : {})}
          >
            {s.kind === 'textarea' ? (
              <textarea {...common} rows={3} />
            ) : s.kind === 'email' ? (
              <input {...common} type="email" autoComplete="off" />
            ) : (
              <input
                {...common}
                type="text"
                inputMode={s.kind === 'count' ? 'numeric' : s.kind === 'text' ? 'text' : 'decimal'}
                autoComplete="off"
              />
            )}
          </Field>
        );
      })}
    </>
  );
}
