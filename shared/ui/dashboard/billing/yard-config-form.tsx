import { ConfigForm } from './config-form';
import { saveYardConfig, type YardConfig } from './data';
import { type FieldSpec, type Texts, toText } from './form-values';
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
      name: 'lateFee',
      label: 'Late arrival fee',
      kind: 'money',
      hint: 'Per appointment whose truck arrived late. Not counted towards the minimum.',
    },
    {
      name: 'noShowFee',
      label: 'No-show fee',
      kind: 'money',
      hint: 'Per appointment marked no-show. Not counted towards the minimum.',
    },
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
  const initial: Texts = {};
  for (const s of yardSpecs(initialCurrency))
    initial[s.name] = toText(s, props.config?.[s.name as keyof YardConfig], initialCurrency);
  if (!props.config) initial.paymentTermsDays = '30';
  // The rates are read in the currency typed, once it is a code.
  const currencyOf = (values: Texts) =>
    /^[A-Z]{3}$/.test(values.currency ?? '') ? (values.currency as string) : initialCurrency;
  return (
    <ConfigForm
      id="yard-config-form"
      prefix="yard-config"
      title={
        <>
          {props.config ? 'Edit' : 'Set up'} billing for {props.yardName}
        </>
      }
      submit="Save yard billing"
      initial={initial}
      specs={(values) => {
        const currency = currencyOf(values);
        return { specs: yardSpecs(currency), currency };
      }}
      normalise={(values) => ({ ...values, currency: (values.currency ?? '').toUpperCase() })}
      empty={undefined}
      save={(body) => saveYardConfig(props.yardId, body)}
      onSaved={props.onSaved}
      onCancel={props.onCancel}
    />
  );
}
