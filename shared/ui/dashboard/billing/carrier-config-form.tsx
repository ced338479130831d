import { describedBy, Field } from '../../common/components/field';
import { ConfigForm } from './config-form';
import { type Carrier, type CarrierConfig, carrierName, saveCarrierConfig, type YardConfig } from './data';
import { type FieldSpec, type Texts, toText } from './form-values';
import { count, money } from './money';

/** The rates a carrier's agreement may set for itself; an empty one is the yard's. */
const RATES = [
  ['bookedSpaces', 'Booked spaces'],
  ['spaceMonthlyRate', 'Space per month'],
  ['overageDailyRate', 'Overage per day'],
  ['moveFee', 'Move fee'],
  ['gateFee', 'Gate fee'],
  ['lateFee', 'Late arrival fee'],
  ['noShowFee', 'No-show fee'],
  ['minimumMonthly', 'Minimum per month'],
] as const;

/** A carrier's agreement: each rate empty = the yard's (shown as the placeholder), then bill-to. */
function carrierSpecs(yard: YardConfig): FieldSpec[] {
  return [
    ...RATES.map(([name, label]): FieldSpec => {
      const spaces = name === 'bookedSpaces';
      return {
        name,
        label,
        kind: spaces ? 'count' : 'money',
        placeholder: `Yard’s: ${spaces ? count(yard[name]) : money(yard[name], yard.currency)}`,
        hint: 'Leave empty to use the yard’s.',
      };
    }),
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
  const initial: Texts = { carrierId: props.editing?.carrierId ?? '' };
  for (const s of specs)
    initial[s.name] = toText(s, props.editing?.[s.name as keyof CarrierConfig], currency);
  const title = props.editing
    ? `Edit the agreement of ${carrierName(props.carriers, props.editing.carrierId)}`
    : 'New carrier agreement';
  return (
    <ConfigForm
      id="carrier-form"
      prefix="carrier-config"
      title={title}
      submit="Save agreement"
      initial={initial}
      specs={() => ({ specs, currency })}
      empty={null}
      save={(body, values) =>
        saveCarrierConfig(props.yard.yardId, values.carrierId ?? '', body, props.editing === null)
      }
      onSaved={props.onSaved}
      onCancel={props.onCancel}
      {...(props.editing
        ? {}
        : {
            lead: {
              name: 'carrierId',
              check: (values: Texts) => (values.carrierId ? undefined : 'Choose the carrier.'),
              render: (value: string, error: string | undefined, set: (value: string) => void) => (
                <Field id="carrier-form-carrier" label="Carrier" error={error}>
                  <select
                    {...describedBy('carrier-form-carrier', error)}
                    value={value}
                    onChange={(e) => set(e.currentTarget.value)}
                  >
                    <option value="">Choose a carrier…</option>
                    {props.available.map((c) => (
                      <option key={c.id} value={c.id}>
                        {carrierName(props.carriers, c.id)}
                      </option>
                    ))}
                  </select>
                </Field>
              ),
            },
          })}
    />
  );
}
