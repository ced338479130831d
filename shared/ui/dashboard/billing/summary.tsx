import { useEffect, useState } from 'preact/hooks';
import { billingProblemText, submitProblemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import {
  type BillingBase,
  type CurrencyTotal,
  calculateSummaries,
  carrierName,
  loadSummaries,
  type Summary,
} from './data';
import { LinesTable } from './lines-table';
import { count, money } from './money';
import { OverageTable } from './overage-table';
import { currentPeriod, periodLabel, recentPeriods } from './period';

/**
 * Summary: a period's billing figures per carrier of the yard (the stored summaries of the API),
 * then one carrier's lines and its per-day overage table. The ongoing period is "so far".
 */
export function SummaryPage(props: {
  base: BillingBase;
  yardId: string;
  timeZone: string;
  canEdit: boolean;
  period: string;
  carrierId: string;
  onChoose: (period: string, carrierId: string) => void;
}) {
  const { config, carriers } = props.base;
  const [items, setItems] = useState<Summary[] | null>(null);
  const [totals, setTotals] = useState<CurrencyTotal[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const ongoing = props.period === currentPeriod(props.timeZone);
  const calculation = useSubmit(async () => {
    await calculateSummaries(props.yardId, props.period, ongoing);
    setGeneration((g) => g + 1);
  });

  useEffect(() => {
    let live = true;
    setItems(null);
    setProblem(null);
    calculation.clear();
    loadSummaries(props.yardId, props.period).then(
      (page) => {
        if (!live) return;
        setItems(page.items);
        setTotals(page.totals);
      },
      (err: unknown) => live && setProblem(billingProblemText(err)),
    );
    return () => {
      live = false;
    };
  }, [props.yardId, props.period, generation]);

  if (!config) return <p>This yard has no billing config yet: set it up under Configs.</p>;

  const busy = calculation.busy;
  const shownProblem = problem ?? submitProblemText(calculation);
  const calculate = () => {
    setProblem(null);
    calculation.run();
  };

  const chosen = items?.find((s) => s.carrierId === props.carrierId) ?? null;
  const name = (id: string) => carrierName(carriers, id);
  return (
    <section aria-labelledby="summary-heading">
      <h2 id="summary-heading">Summary</h2>
      <div class="filters">
        <label>
          Period{' '}
          <select
            value={props.period}
            onChange={(e) => props.onChoose(e.currentTarget.value, props.carrierId)}
          >
            {recentPeriods(props.timeZone).map((p, i) => (
              <option key={p} value={p}>
                {periodLabel(p)}
                {i === 0 ? ' (ongoing)' : ''}
              </option>
            ))}
          </select>
        </label>
        {props.canEdit && (
          <button type="button" onClick={calculate} disabled={busy}>
            {busy ? 'Calculating…' : items?.length ? 'Recalculate' : 'Calculate the summary'}
          </button>
        )}
      </div>
      {shownProblem && <FormMessage kind="error">{shownProblem}</FormMessage>}
      {items === null && !shownProblem && <p class="muted">Loading…</p>}
      {items && items.length === 0 && (
        <p>
          No summary of {periodLabel(props.period)} is stored yet.{' '}
          {props.canEdit
            ? 'Calculate it: the figures come from the movements, moves and adjustments recorded.'
            : 'An admin or billing user calculates it.'}
        </p>
      )}
      {items && items.length > 0 && (
        <>
          <p class="muted">
            {ongoing ? 'The ongoing month so far: calculated' : 'Calculated'}{' '}
            {yardDateTime(items[0]?.generatedAt, props.timeZone)} over{' '}
            {yardDateTime(items[0]?.window.start, props.timeZone)} to{' '}
            {yardDateTime(items[0]?.window.end, props.timeZone)}.
          </p>
          <table class="billing-table summary-table">
            <caption>
              {periodLabel(props.period)} per carrier, in {config.currency}
            </caption>
            <thead>
              <tr>
                <th scope="col">Carrier</th>
                <th scope="col" class="num">
                  Visits
                </th>
                <th scope="col" class="num">
                  Check-ins
                </th>
                <th scope="col" class="num">
                  Moves
                </th>
                <th scope="col" class="num">
                  Overage unit-days
                </th>
                <th scope="col" class="num">
                  Subtotal
                </th>
                <th scope="col" class="num">
                  Tax
                </th>
                <th scope="col" class="num">
                  Total
                </th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {items.map((s) => (
                <tr key={s.id} aria-current={s.carrierId === props.carrierId ? 'true' : undefined}>
                  <th scope="row">{name(s.carrierId)}</th>
                  <td class="num">{count(s.counts.visits)}</td>
                  <td class="num">{count(s.counts.checkIns)}</td>
                  <td class="num">{count(s.counts.moves)}</td>
                  <td class="num">{count(s.lines.overage.quantity)}</td>
                  <td class="num">{money(s.subtotal, s.currency)}</td>
                  <td class="num">{money(s.tax, s.currency)}</td>
                  <td class="num">{money(s.total, s.currency)}</td>
                  <td>
                    <button
                      type="button"
                      class="link"
                      aria-label={`Show ${name(s.carrierId)}`}
                      onClick={() => props.onChoose(props.period, s.carrierId)}
                    >
                      Show
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              {totals.map((t) => (
                <tr key={t.currency}>
                  <th scope="row" colSpan={5}>
                    All {count(t.count)} carriers
                  </th>
                  <td class="num">{money(t.subtotal, t.currency)}</td>
                  <td class="num">{money(t.tax, t.currency)}</td>
                  <td class="num">{money(t.total, t.currency)}</td>
                  <td />
                </tr>
              ))}
            </tfoot>
          </table>
          {chosen ? (
            <div class="summary-detail">
              <h3>
                {name(chosen.carrierId)}, {periodLabel(chosen.period)}
              </h3>
              <p class="muted">
                Rates: {count(chosen.rates.bookedSpaces)} booked spaces, overage{' '}
                {money(chosen.rates.overageDailyRate, chosen.currency)} per trailer-day; grace{' '}
                {count(chosen.graceMinutes)} min; days in {chosen.timeZone}.
              </p>
              <div class="summary-columns">
                <LinesTable
                  lines={chosen.lines}
                  subtotal={chosen.subtotal}
                  tax={chosen.tax}
                  total={chosen.total}
                  taxRateBp={chosen.taxRateBp}
                  currency={chosen.currency}
                  caption={`Charges of ${name(chosen.carrierId)}`}
                />
                <OverageTable
                  days={chosen.days}
                  currency={chosen.currency}
                  caption={`Overage per day of ${name(chosen.carrierId)} (days in ${chosen.timeZone})`}
                />
              </div>
            </div>
          ) : (
            <p class="muted">Choose Show on a carrier for its charges and per-day overage table.</p>
          )}
        </>
      )}
    </section>
  );
}
