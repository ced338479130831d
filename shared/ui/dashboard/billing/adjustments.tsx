import { useEffect, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { billingProblemText, submitProblemText } from '../../common/api/problem-text';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import {
  type Adjustment,
  type BillingBase,
  carrierName,
  createAdjustment,
  deleteAdjustment,
  loadAdjustments,
} from './data';
import { money, moneyHint, parseMoney } from './money';
import { periodLabel, recentPeriods } from './period';

type Errors = Partial<Record<'carrierId' | 'period' | 'amount' | 'description', string>>;

/**
 * Adjustments: signed amounts added to a carrier's month (after the minimum, before tax), each with
 * its reason. They change a draft when it is recalculated; once the month is issued they are locked
 * (409 period-invoiced) until the invoice is voided.
 */
export function AdjustmentsPage(props: {
  base: BillingBase;
  yardId: string;
  timeZone: string;
  canEdit: boolean;
  carrierId: string;
  period: string;
  onChoose: (period: string, carrierId: string) => void;
}) {
  const { config, carriers } = props.base;
  const [rows, setRows] = useState<Adjustment[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [amount, setAmount] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const add = useSubmit(async (body: Parameters<typeof createAdjustment>[0]) => {
    try {
      return await createAdjustment(body);
    } catch (err) {
      const fields = err instanceof ProblemError ? err.fieldErrors() : {};
      const placed: Errors = {};
      for (const k of ['carrierId', 'period', 'amount', 'description'] as const)
        if (fields[k]) placed[k] = fields[k];
      setErrors(placed);
      throw err;
    }
  });

  useEffect(() => {
    let live = true;
    setRows(null);
    loadAdjustments({ yardId: props.yardId, period: props.period, carrierId: props.carrierId }).then(
      (items) => live && setRows(items),
      (err: unknown) => live && setProblem(billingProblemText(err)),
    );
    return () => {
      live = false;
    };
  }, [props.yardId, props.period, props.carrierId, generation]);

  if (!config) return <p>This yard has no billing config yet: set it up under Configs.</p>;
  const currency = config.currency;

  const create = async (e: Event) => {
    e.preventDefault();
    const local: Errors = {};
    if (!props.carrierId) local.carrierId = 'Choose the carrier.';
    const parsed = parseMoney(amount, currency, { signed: true });
    if (!parsed.ok) local.amount = parsed.message;
    else if (parsed.minor === 0) local.amount = 'An adjustment of 0 changes nothing.';
    if (!description.trim()) local.description = 'Say why (it is printed on the invoice).';
    setErrors(local);
    setProblem(null);
    add.clear();
    setMessage(null);
    if (Object.keys(local).length || !parsed.ok) return;
    const added = await add.run({
      yardId: props.yardId,
      carrierId: props.carrierId,
      period: props.period,
      amount: parsed.minor,
      description: description.trim(),
    });
    if (!added) return;
    setAmount('');
    setDescription('');
    setMessage(
      `Adjustment of ${money(parsed.minor, currency)} added. A draft invoice takes it when it is recalculated.`,
    );
    setGeneration((g) => g + 1);
  };
  const remove = async (a: Adjustment) => {
    try {
      await deleteAdjustment(a.id);
      setMessage(`The adjustment “${a.description}” is deleted.`);
      setGeneration((g) => g + 1);
    } catch (err) {
      setProblem(billingProblemText(err));
    }
  };

  return (
    <section aria-labelledby="adjustments-heading">
      <h2 id="adjustments-heading">Adjustments</h2>
      <div class="filters">
        <Field id="adj-carrier" label="Carrier" error={errors.carrierId}>
          <select
            {...describedBy('adj-carrier', errors.carrierId)}
            value={props.carrierId}
            onChange={(e) => props.onChoose(props.period, e.currentTarget.value)}
          >
            <option value="">All carriers</option>
            {carriers.map((c) => (
              <option key={c.id} value={c.id}>
                {carrierName(carriers, c.id)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="adj-period" label="Month" error={errors.period}>
          <select
            {...describedBy('adj-period', errors.period)}
            value={props.period}
            onChange={(e) => props.onChoose(e.currentTarget.value, props.carrierId)}
          >
            {recentPeriods(props.timeZone).map((p) => (
              <option key={p} value={p}>
                {periodLabel(p)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {(problem ?? submitProblemText(add)) && (
        <FormMessage kind="error">{problem ?? submitProblemText(add)}</FormMessage>
      )}
      {message && <FormMessage kind="ok">{message}</FormMessage>}
      {rows === null && !problem && <p class="muted">Loading…</p>}
      {rows && (
        <table class="billing-table">
          <caption>
            Adjustments of {periodLabel(props.period)}
            {props.carrierId ? `, ${carrierName(carriers, props.carrierId)}` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Carrier</th>
              <th scope="col" class="num">
                Amount
              </th>
              <th scope="col">Reason</th>
              <th scope="col">Added</th>
              {props.canEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && (
              <tr>
                <td colSpan={5}>
                  No adjustments for this month
                  {props.canEdit ? ': add one below (a negative amount is a credit).' : '.'}
                </td>
              </tr>
            )}
            {rows.map((a) => (
              <tr key={a.id}>
                <th scope="row">{carrierName(carriers, a.carrierId)}</th>
                <td class="num">{money(a.amount, currency)}</td>
                <td>{a.description}</td>
                <td>{yardDateTime(a.createdAt, props.timeZone)}</td>
                {props.canEdit && (
                  <td>
                    <button
                      type="button"
                      aria-label={`Delete the adjustment ${a.description}`}
                      onClick={() => remove(a)}
                    >
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.canEdit && (
        <form class="panel billing-form" onSubmit={create} aria-labelledby="adj-form-heading" noValidate>
          <h3 id="adj-form-heading">Add an adjustment</h3>
          <p class="muted">
            {props.carrierId
              ? `For ${carrierName(carriers, props.carrierId)}, ${periodLabel(props.period)}.`
              : 'Choose the carrier above first.'}{' '}
            A negative amount is a credit; it is added after the minimum, before tax.
          </p>
          <div class="form-grid">
            <Field
              id="adj-amount"
              label={`Amount (${currency})`}
              error={errors.amount}
              hint={`${moneyHint(currency)} Negative for a credit.`}
            >
              <input
                {...describedBy('adj-amount', errors.amount, true)}
                value={amount}
                inputMode="decimal"
                autoComplete="off"
                aria-required="true"
                onInput={(e) => {
                  setAmount(e.currentTarget.value);
                  setErrors((er) => ({ ...er, amount: undefined }));
                }}
              />
            </Field>
            <Field
              id="adj-description"
              label="Reason"
              error={errors.description}
              hint="Printed on the invoice."
            >
              <input
                {...describedBy('adj-description', errors.description, true)}
                value={description}
                maxLength={500}
                autoComplete="off"
                aria-required="true"
                onInput={(e) => {
                  setDescription(e.currentTarget.value);
                  setErrors((er) => ({ ...er, description: undefined }));
                }}
              />
            </Field>
          </div>
          <button type="submit" class="primary" disabled={add.busy}>
            Add adjustment
          </button>
        </form>
      )}
    </section>
  );
}
