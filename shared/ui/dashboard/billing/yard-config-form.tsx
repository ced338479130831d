import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, call } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { billingProblemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import type { YardConfig } from './data';
import { FormFields } from './form-fields';
import { type Errors, type FieldSpec, type Texts, toBody, toText } from './form-values';
import { moneyHint } from './money';

/** The yard's config: currency, tax, grace, the default rates and who bills (DOMAIN.md "Billing"). */
function yardSpecs(currency: string): FieldSpec[] {
  const m = moneyHint(currency);
  return [
    {
      name: 'currency',
      label: 'Currency',
      kind: 'text',
      required: true,
      hint: 'ISO 4217 code, e.g. USD, EUR.',
    },
    { name: 'taxRateBp', label: 'Tax rate', kind: 'percent', required: true, hint: 'e.g. 8.25' },
    {
      name: 'graceMinutes',
      label: 'Grace (minutes)',
      kind: 'count',
      hint: 'A visit shorter than this is never counted as present.',
    },
    {
      name: 'bookedSpaces',
      label: 'Booked spaces',
      kind: 'count',
      hint: 'Default for carriers with an agreement in this yard.',
    },
    { name: 'spaceMonthlyRate', label: 'Space per month', kind: 'money', hint: `Per booked space. ${m}` },
    {
      name: 'overageDailyRate',
      label: 'Overage per day',
      kind: 'money',
      hint: 'Per trailer-day above the booked spaces.',
    },
    { name: 'moveFee', label: 'Move fee', kind: 'money', hint: 'Per completed yard move.' },
    { name: 'gateFee', label: 'Gate fee', kind: 'money', hint: 'Per check-in.' },
    {
      name: 'minimumMonthly',
      label: 'Minimum per month',
      kind: 'money',
      hint: 'Default for carriers with an agreement; before adjustments.',
    },
    { name: 'issuerName', label: 'Issuer name', kind: 'text', hint: 'Printed on invoices.' },
    { name: 'issuerAddress', label: 'Issuer address', kind: 'textarea' },
    { name: 'issuerTaxId', label: 'Issuer tax id', kind: 'text' },
    { name: 'paymentTermsDays', label: 'Payment terms (days)', kind: 'count', hint: 'Default 30.' },
  ];
}

/**
 * Creates or replaces the yard's billing config (PUT: the whole config; an empty rate is 0). The
 * billing API keeps no versions (no ETag), so the last save wins; the form starts from what was read.
 */
export function YardConfigForm(props: {
  yardId: string;
  yardName: string;
  config: YardConfig | null;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const initialCurrency = props.config?.currency ?? 'USD';
  const [values, setValues] = useState<Texts>(() => {
    const v: Texts = {};
    for (const s of yardSpecs(initialCurrency))
      v[s.name] = toText(s, props.config?.[s.name as keyof YardConfig], initialCurrency);
    if (!props.config) v.paymentTermsDays = '30';
    return v;
  });
  const [errors, setErrors] = useState<Errors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLFormElement>(null);
  // Before the browser paints (not in a late effect): focus moving after the clerk started typing
  // would send the rest of the keys into the first field.
  useLayoutEffect(() => first.current?.querySelector('input')?.focus(), []);
  const currency = /^[A-Z]{3}$/.test(values.currency ?? '') ? (values.currency as string) : initialCurrency;
  const specs = yardSpecs(currency);

  const submit = async (e: Event) => {
    e.preventDefault();
    const { body, errors: local } = toBody(
      specs,
      { ...values, currency: (values.currency ?? '').toUpperCase() },
      currency,
      undefined,
    );
    setErrors(local);
    setProblem(null);
    if (Object.values(local).some(Boolean)) return;
    setBusy(true);
    try {
      await call(
        api.PUT('/api/billing/config/{yardId}', {
          params: { path: { yardId: props.yardId } },
          body: body as never,
        }),
      );
      props.onSaved();
    } catch (err) {
      const fields = err instanceof ProblemError ? err.fieldErrors() : {};
      const placed: Errors = {};
      const rest: string[] = [];
      for (const [k, msg] of Object.entries(fields)) {
        if (specs.some((s) => s.name === k)) placed[k] = msg;
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

  return (
    <form
      class="panel billing-form"
      ref={first}
      onSubmit={submit}
      aria-labelledby="yard-config-form-heading"
      noValidate
    >
      <h2 id="yard-config-form-heading">
        {props.config ? 'Edit' : 'Set up'} billing for {props.yardName}
      </h2>
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      <div class="form-grid">
        <FormFields
          prefix="yard-config"
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
          {busy ? 'Saving…' : 'Save yard billing'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
