import { describedBy, Field } from '../common/components/field';

/** A required reason kept with what it explains (a void, a cancellation): one line, at most 500 characters. */
export function ReasonField(props: {
  id: string;
  label: string;
  hint: string;
  value: string;
  error: string | undefined;
  onInput: (value: string) => void;
}) {
  return (
    <Field id={props.id} label={props.label} error={props.error} hint={props.hint}>
      <input
        {...describedBy(props.id, props.error, true)}
        value={props.value}
        maxLength={500}
        aria-required="true"
        autoComplete="off"
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </Field>
  );
}
