import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { billingProblemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { CarrierConfigForm } from './carrier-config-form';
import { ConfirmDialog } from './confirm-dialog';
import {
  type BillingBase,
  type CarrierConfig,
  carrierName,
  deleteCarrierConfig,
  type YardConfig,
} from './data';
import { count, money, percentOfBp } from './money';

type Rate =
  | 'bookedSpaces'
  | 'spaceMonthlyRate'
  | 'overageDailyRate'
  | 'moveFee'
  | 'gateFee'
  | 'minimumMonthly';
const RATES: { key: Rate; label: string }[] = [
  { key: 'bookedSpaces', label: 'Booked spaces' },
  { key: 'spaceMonthlyRate', label: 'Space / month' },
  { key: 'overageDailyRate', label: 'Overage / day' },
  { key: 'moveFee', label: 'Move fee' },
  { key: 'gateFee', label: 'Gate fee' },
  { key: 'minimumMonthly', label: 'Minimum / month' },
];

function rateText(key: Rate, value: number, currency: string): string {
  return key === 'bookedSpaces' ? count(value) : money(value, currency);
}

/** The yard's config as a definition list. */
function YardRates(props: { config: YardConfig }) {
  const c = props.config;
  return (
    <dl class="billing-facts wide">
      <dt>Currency</dt>
      <dd>{c.currency}</dd>
      <dt>Tax</dt>
      <dd>{percentOfBp(c.taxRateBp)}</dd>
      <dt>Grace</dt>
      <dd>{count(c.graceMinutes)} min</dd>
      {RATES.map((r) => (
        <Fragment key={r.key}>
          <dt>{r.label}</dt>
          <dd>{rateText(r.key, c[r.key], c.currency)}</dd>
        </Fragment>
      ))}
      <dt>Payment terms</dt>
      <dd>{count(c.paymentTermsDays)} days</dd>
      <dt>Issuer</dt>
      <dd>{[c.issuerName, c.issuerAddress, c.issuerTaxId].filter(Boolean).join(', ') || 'Not set'}</dd>
    </dl>
  );
}

/**
 * Configs: the yard's billing config and each carrier's agreement, every rate shown as what is
 * billed (the API's `effective`) and where it comes from (the carrier's own, or the yard's).
 */
export function Configs(props: {
  base: BillingBase;
  yardName: string;
  canEdit: boolean;
  onChanged: () => void;
  onEditYard: () => void;
}) {
  const { config, carriers } = props.base;
  const [editing, setEditing] = useState<CarrierConfig | 'new' | null>(null);
  const [deleting, setDeleting] = useState<CarrierConfig | null>(null);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const removal = useSubmit(async (c: CarrierConfig) => {
    const name = carrierName(carriers, c.carrierId);
    try {
      await deleteCarrierConfig(c.id);
      saved(`The agreement of ${name} is deleted.`);
    } catch (err) {
      setMessage({ kind: 'error', text: billingProblemText(err) });
    } finally {
      setDeleting(null);
    }
  });
  if (!config) {
    return (
      <section aria-labelledby="configs-heading">
        <h2 id="configs-heading">Configs</h2>
        <p>
          {props.yardName} has no billing config yet: nothing is billed here until it has one.{' '}
          {props.canEdit
            ? 'Set it up with the currency, tax and rates.'
            : 'An admin or billing user sets it up.'}
        </p>
        {props.canEdit && (
          <button type="button" class="primary" onClick={props.onEditYard}>
            Set up billing for this yard
          </button>
        )}
      </section>
    );
  }
  const withConfig = new Set(config.carriers.map((c) => c.carrierId));
  const without = carriers.filter((c) => !withConfig.has(c.id));
  const saved = (text: string) => {
    setEditing(null);
    setMessage({ kind: 'ok', text });
    props.onChanged();
  };
  return (
    <section aria-labelledby="configs-heading">
      <h2 id="configs-heading">Configs</h2>
      {message && <FormMessage kind={message.kind}>{message.text}</FormMessage>}
      <div class="panel">
        <div class="panel-head">
          <h3>Yard rates ({props.yardName})</h3>
          {props.canEdit && (
            <button type="button" onClick={props.onEditYard}>
              Edit yard rates
            </button>
          )}
        </div>
        <YardRates config={config} />
      </div>
      <table class="billing-table rates-table">
        <caption>
          Carrier agreements: the rate billed, and where it comes from (the carrier's own, or the yard's)
        </caption>
        <thead>
          <tr>
            <th scope="col">Carrier</th>
            {RATES.map((r) => (
              <th key={r.key} scope="col" class="num">
                {r.label}
              </th>
            ))}
            <th scope="col">Bill to</th>
            {props.canEdit && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {config.carriers.length === 0 && (
            <tr>
              <td colSpan={RATES.length + 3}>No carrier has an agreement yet: add one below.</td>
            </tr>
          )}
          {config.carriers.map((c) => {
            const name = carrierName(carriers, c.carrierId);
            return (
              <tr key={c.id}>
                <th scope="row">{name}</th>
                {RATES.map((r) => (
                  <td key={r.key} class="num">
                    {rateText(r.key, c.effective[r.key], config.currency)}
                    <small class={c[r.key] === null ? 'source inherited' : 'source own'}>
                      {c[r.key] === null ? 'yard' : 'own'}
                    </small>
                  </td>
                ))}
                <td>{[c.billToName, c.billToEmail].filter(Boolean).join(', ') || name}</td>
                {props.canEdit && (
                  <td class="row-actions">
                    <button type="button" aria-label={`Edit ${name}`} onClick={() => setEditing(c)}>
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-label={`Delete the agreement of ${name}`}
                      onClick={() => setDeleting(c)}
                    >
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      <p class="muted">
        {without.length > 0
          ? `Without an agreement: ${without.map((c) => carrierName(carriers, c.id)).join(', ')}. They pay the yard's per-use rates, with no booked spaces (every trailer present is overage) and no minimum.`
          : 'Every carrier has an agreement.'}
      </p>
      {props.canEdit && editing === null && without.length > 0 && (
        <button type="button" class="primary" onClick={() => setEditing('new')}>
          Add a carrier agreement
        </button>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the agreement of ${carrierName(carriers, deleting.carrierId)}?`}
          confirm="Delete agreement"
          danger
          busy={removal.busy}
          onCancel={() => setDeleting(null)}
          onConfirm={() => removal.run(deleting)}
        >
          <p>
            The carrier then pays the yard's rates, with no booked spaces and no minimum. Invoices already
            made keep their figures.
          </p>
        </ConfirmDialog>
      )}
      {editing !== null && (
        <CarrierConfigForm
          key={editing === 'new' ? 'new' : editing.id}
          yard={config}
          carriers={carriers}
          editing={editing === 'new' ? null : editing}
          available={without}
          onCancel={() => setEditing(null)}
          onSaved={() => saved('The agreement is saved.')}
        />
      )}
    </section>
  );
}
