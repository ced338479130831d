import type { OverageDay } from './data';
import { count, money } from './money';
import { dayLabel } from './period';

/**
 * The per-day overage table (DOMAIN.md "Billing"): each yard-local day of the period that has begun,
 * the peak of the carrier's trailers present at once, the booked spaces, the billable overage and
 * its amount; the total underneath.
 */
export function OverageTable(props: { days: OverageDay[]; currency: string; caption: string }) {
  const total = props.days.reduce((sum, d) => sum + d.amount, 0);
  const units = props.days.reduce((sum, d) => sum + d.overage, 0);
  if (props.days.length === 0) {
    return <p class="muted">No day of this period has begun yet, so there is no overage to show.</p>;
  }
  return (
    <table class="billing-table overage-table">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col" class="num">
            Peak trailers
          </th>
          <th scope="col" class="num">
            Booked spaces
          </th>
          <th scope="col" class="num">
            Billable overage
          </th>
          <th scope="col" class="num">
            Amount
          </th>
        </tr>
      </thead>
      <tbody>
        {props.days.map((d) => (
          <tr key={d.date} class={d.overage > 0 ? 'has-overage' : undefined}>
            <th scope="row">
              <time dateTime={d.date}>{dayLabel(d.date)}</time>
            </th>
            <td class="num">{count(d.peak)}</td>
            <td class="num">{count(d.bookedSpaces)}</td>
            <td class="num">{count(d.overage)}</td>
            <td class="num">{money(d.amount, props.currency)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total</th>
          <td />
          <td />
          <td class="num">{count(units)} unit-days</td>
          <td class="num">{money(total, props.currency)}</td>
        </tr>
      </tfoot>
    </table>
  );
}
