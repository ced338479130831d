import type { Schemas } from '../../common/api/client';
import { count, money, percentOfBp } from './money';

type Lines = Schemas['BillingLines'];

const LINES: { key: keyof Lines; label: string; unit: string }[] = [
  { key: 'space', label: 'Booked spaces', unit: 'spaces' },
  { key: 'overage', label: 'Overage', unit: 'unit-days' },
  { key: 'moves', label: 'Yard moves', unit: 'moves' },
  { key: 'gate', label: 'Gate check-ins', unit: 'check-ins' },
  { key: 'minimum', label: 'Minimum top-up', unit: '' },
  { key: 'adjustments', label: 'Adjustments', unit: 'adjustments' },
];

/** The charge lines of a summary or invoice, then subtotal, tax and total, in the config's currency. */
export function LinesTable(props: {
  lines: Lines;
  subtotal: number;
  tax: number;
  total: number;
  taxRateBp: number;
  currency: string;
  caption: string;
}) {
  const m = (n: number) => money(n, props.currency);
  return (
    <table class="billing-table lines-table">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Line</th>
          <th scope="col" class="num">
            Quantity
          </th>
          <th scope="col" class="num">
            Unit price
          </th>
          <th scope="col" class="num">
            Amount
          </th>
        </tr>
      </thead>
      <tbody>
        {LINES.map((l) => {
          const line = props.lines[l.key];
          const perUnit = l.key !== 'minimum' && l.key !== 'adjustments';
          return (
            <tr key={l.key}>
              <th scope="row">{l.label}</th>
              <td class="num">{l.unit ? `${count(line.quantity)} ${l.unit}` : ''}</td>
              <td class="num">{perUnit ? m(line.unitAmount) : ''}</td>
              <td class="num">{m(line.amount)}</td>
            </tr>
          );
        })}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colSpan={3}>
            Subtotal
          </th>
          <td class="num">{m(props.subtotal)}</td>
        </tr>
        <tr>
          <th scope="row" colSpan={3}>
            Tax ({percentOfBp(props.taxRateBp)})
          </th>
          <td class="num">{m(props.tax)}</td>
        </tr>
        <tr class="grand-total">
          <th scope="row" colSpan={3}>
            {props.total < 0 ? 'Total (credit)' : 'Total'}
          </th>
          <td class="num">{m(props.total)}</td>
        </tr>
      </tfoot>
    </table>
  );
}
