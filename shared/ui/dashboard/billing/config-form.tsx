import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { billingProblemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { FormFields } from './form-fields';
import { type Errors, type FieldSpec, type Texts, toBody } from './form-values';

/** What a config form shows before its rates (a new agreement's carrier), with its own check. */
export interface LeadField {
  name: string;
  /** The error when the typed values miss it; undefined when fine. */
  check: (values: Texts) => string | undefined;
  render: (value: string, error: string | undefined, set: (value: string) => void) => ComponentChildren;
}

/**
 * The billing config form (the yard's rates, or a carrier's agreement): its fields from specs, a
 * local check before sending, and the server's errors placed beside the fields they name (the rest
 * said above the form). The billing API keeps no versions (no ETag, no 412): the last save wins.
 */
export function ConfigForm(props: {
  /** Heading id `${id}-heading`. */
  id: string;
  /** Field ids `${prefix}-${name}`. */
  prefix: string;
  title: ComponentChildren;
  submit: string;
  initial: Texts;
  /** The fields and the currency of what is typed now (a yard's currency field changes its rates'). */
  specs: (values: Texts) => { specs: FieldSpec[]; currency: string };
  /** What an empty field sends: null (inherit the yard's) or undefined (left out: the API's default). */
  empty: null | undefined;
  lead?: LeadField;
  /** The typed values as they are checked and sent (a currency code in capitals). */
  normalise?: (values: Texts) => Texts;
  /** Sends the body (the lead's value beside it); throws the API's ProblemError on a refusal. */
  save: (body: Record<string, unknown>, values: Texts) => Promise<void>;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<Texts>(props.initial);
  const [errors, setErrors] = useState<Errors>({});
  // What the last refusal says above the form, worded when it came.
  const [message, setMessage] = useState('');
  const form = useRef<HTMLFormElement>(null);
  // Before the browser paints (not in a late effect): focus moving after the clerk started typing
  // would send the rest of the keys into the first field.
  useLayoutEffect(() => (form.current?.querySelector('select, input') as HTMLElement | null)?.focus(), []);
  const { specs, currency } = props.specs(values);
  const known = (k: string) => k === props.lead?.name || specs.some((s) => s.name === k);
  const sending = useSubmit(async (body: Record<string, unknown>) => {
    try {
      await props.save(body, values);
    } catch (err) {
      const fields = err instanceof ProblemError ? err.fieldErrors() : {};
      const placed: Errors = {};
      const rest: string[] = [];
      for (const [k, msg] of Object.entries(fields)) {
        if (known(k)) placed[k] = msg;
        else rest.push(`${k}: ${msg}`);
      }
      setErrors(placed);
      setMessage(
        Object.keys(placed).length && !rest.length
          ? 'Check the marked fields.'
          : [billingProblemText(err), ...rest].join(' '),
      );
      throw err;
    }
    props.onSaved();
  });

  const submit = (e: Event) => {
    e.preventDefault();
    const typed = props.normalise ? props.normalise(values) : values;
    const { body, errors: local } = toBody(specs, typed, currency, props.empty);
    if (props.lead) local[props.lead.name] = props.lead.check(values);
    setErrors(local);
    sending.clear();
    if (Object.values(local).some(Boolean)) return;
    sending.run(body);
  };
  const set = (name: string, value: string) => {
    setValues((v) => ({ ...v, [name]: value }));
    setErrors((er) => ({ ...er, [name]: undefined }));
  };

  return (
    <form
      class="panel billing-form"
      ref={form}
      onSubmit={submit}
      aria-labelledby={`${props.id}-heading`}
      noValidate
    >
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {(sending.problem || sending.failed) && <FormMessage kind="error">{message}</FormMessage>}
      {props.lead?.render(values[props.lead.name] ?? '', errors[props.lead.name], (v) =>
        set(props.lead!.name, v),
      )}
      <div class="form-grid">
        <FormFields
          prefix={props.prefix}
          specs={specs}
          values={values}
          errors={errors}
          currency={currency}
          onInput={set}
        />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={sending.busy}>
          {sending.busy ? 'Saving…' : props.submit}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
