import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, call } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { billingProblemText } from '../../common/api/problem-text';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { type Carrier, type CarrierConfig, carrierName, type YardConfig } from './data';
import { FormFields } from './form-fields';
import { type Errors, type FieldSpec, type Texts, toBody, toText } from './form-values';
import { count, money } from './money';

/** A carrier's agreement: each rate empty = the yard's (shown as the placeholder), then bill-to. */
function carrierSpecs(yard: YardConfig): FieldSpec[] {
  const c = yard.currency;
  const inherit = 'Leave empty to use the yard’s.';
  const yards = (label: string) => `Yard’s: ${label}`;
  return [
    {
      name: 'bookedSpaces',
      label: 'Booked spaces',
      kind: 'count',
      placeholder: yards(count(yard.bookedSpaces)),
      hint: inherit,
    },
    {
      name: 'spaceMonthlyRate',
      label: 'Space per month',
      kind: 'money',
      placeholder: yards(money(yard.spaceMonthlyRate, c)),
      hint: inherit,
    },
    {
      name: 'overageDailyRate',
      label: 'Overage per day',
      kind: 'money',
      placeholder: yards(money(yard.overageDailyRate, c)),
      hint: inherit,
    },
    {
      name: 'moveFee',
      label: 'Move fee',
      kind: 'money',
      placeholder: yards(money(yard.moveFee, c)),
      hint: inherit,
    },
    {
      name: 'gateFee',
      label: 'Gate fee',
      kind: 'money',
      placeholder: yards(money(yard.gateFee, c)),
      hint: inherit,
    },
    {
      name: 'minimumMonthly',
      label: 'Minimum per month',
      kind: 'money',
      placeholder: yards(money(yard.minimumMonthly, c)),
      hint: inherit,
    },
    { name: 'billToName', label: 'Bill-to name', kind: 'text', hint: 'Default: the carrier’s name.' },
    { name: 'billToAddress', label: 'Bill-to address', kind: 'textarea' },
    { name: 'billToEmail', label: 'Bill-to email', kind: 'email' },
    { name: 'billToTaxId', label: 'Bill-to tax id', kind: 'text' },
  ];
}

/**
 * Creates (POST) or replaces (PUT, whole) a carrier's config in the yard. The billing API keeps no
 * versions (no ETag, no 412): the last save wins.
 */
export function CarrierConfigForm(props: {
  yard: YardConfig;
  carriers: Carrier[];
  /** The config to edit; null: a new agreement for one of `available`. */
  editing: CarrierConfig | null;
  available: Carrier[];
  onSaved: () => void;
  onCancel: () => void;
}) {
  const specs = carrierSpecs(props.yard);
  const currency = props.yard.currency;
  const [carrierId, setCarrierId] = useState(props.editing?.carrierId ?? '');
  const [values, setValues] = useState<Texts>(() => {
    const v: Texts = {};
    for (const s of specs) v[s.name] = toText(s, props.editing?.[s.name as keyof CarrierConfig], currency);
    return v;
  });
  const [errors, setErrors] = useState<Errors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // Before the browser paints (not in a late effect): focus moving after the clerk started typing
  // would send the rest of the keys into the first field.
  useLayoutEffect(() => (form.current?.querySelector('select, input') as HTMLElement | null)?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const { body, errors: local } = toBody(specs, values, currency, null);
    if (!props.editing && !carrierId) local.carrierId = 'Choose the carrier.';
    setErrors(local);
    setProblem(null);
    if (Object.values(local).some(Boolean)) return;
    setBusy(true);
    try {
      if (props.editing) {
        await call(
          api.PUT('/api/billing/config/{yardId}/carrier/{carrierId}', {
            params: { path: { yardId: props.yard.yardId, carrierId } },
            body: body as never,
          }),
        );
      } else {
        await call(
          api.POST('/api/billing/config/{yardId}/carrier', {
            params: { path: { yardId: props.yard.yardId } },
            body: { carrierId, ...body } as never,
          }),
        );
      }
      props.onSaved();
    } catch (err) {
      const fields = err instanceof ProblemError ? err.fieldErrors() : {};
      const placed: Errors = {};
      const rest: string[] = [];
      for (const [k, msg] of Object.entries(fields)) {
        if (k === 'carrierId' || specs.some((s) => s.name === k)) placed[k] = msg;
        else rest.push(`${k}: ${msg}`);
      }
      setErrors(placed);
      setProblem(
        Object.keys(placed).length && !rest.length
          ? 'Check the marked fields.'
          : [billingProblemText(err), ...rest].join(' '),
      );
    } finally {
      setBusy(false);
    }
  };

  const title = props.editing
    ? `Edit the agreement of ${carrierName(props.carriers, props.editing.carrierId)}`
    : 'New carrier agreement';
  return (
    <form
      class="panel billing-form"
      ref={form}
      onSubmit={submit}
      aria-labelledby="carrier-form-heading"
      noValidate
    >
      <h2 id="carrier-form-heading">{title}</h2>
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {!props.editing && (
        <Field id="carrier-form-carrier" label="Carrier" error={errors.carrierId}>
          <select
            {...describedBy('carrier-form-carrier', errors.carrierId)}
            value={carrierId}
            onChange={(e) => {
              setCarrierId(e.currentTarget.value);
              setErrors((er) => ({ ...er, carrierId: undefined }));
            }}
          >
            <option value="">Choose a carrier…</option>
            {props.available.map((c) => (
              <option key={c.id} value={c.id}>
                {carrierName(props.carriers, c.id)}
              </option>
            ))}
          </select>
        </Field>
      )}
      <div class="form-grid">
        <FormFields
          prefix="carrier-config"
          specs={specs}
          values={values}
          errors={errors}
          currency={currency}
          onInput={(name, value) => {
            setValues((v) => ({ ...v, [name]: value }));
            setErrors((er) => ({ ...er, [name]: undefined }));
          }}
        />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save agreement'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
