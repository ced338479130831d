import { useEffect, useState } from 'preact/hooks';
import { problemText } from '../common/api/problem-text';
import { FormMessage } from '../common/components/field';
import { useSubmit } from '../common/use-submit';
import { download } from './data';
import { type Invoice, invoices } from './invoice-data';
import { dayLabel } from './words';

/**
 * The carrier's issued (and voided) invoices, newest first, with their PDF (the billing PDF route,
 * which admits a carrier user for its own). Loaded on first use (a lazy chunk).
 */
export function Invoices() {
  const [rows, setRows] = useState<Invoice[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    invoices().then(
      (items) => setRows(items),
      (err) => setProblem(problemText(err)),
    );
  }, []);
  const pdf = useSubmit((i: Invoice) =>
    download(`/api/billing/invoice/${encodeURIComponent(i.id)}/pdf`, `${i.number}.pdf`),
  );
  return (
    <section class="invoices" aria-labelledby="invoices-heading">
      <h1 id="invoices-heading">Invoices</h1>
      {problem && <FormMessage kind="error">The invoices could not be loaded: {problem}</FormMessage>}
      {(pdf.problem || pdf.failed) && (
        <FormMessage kind="error">The PDF could not be downloaded. Try again.</FormMessage>
      )}
      {rows === null && !problem && <p class="muted">Loading…</p>}
      {rows?.length === 0 && <p>No invoices yet.</p>}
      <ul class="cards">
        {rows?.map((i) => (
          <li key={i.id} class="card" aria-labelledby={`inv-${i.id}`}>
            <div class="card-head">
              <h2 id={`inv-${i.id}`}>{i.number}</h2>
              <span class={`badge ${i.status === 'void' ? 'bad' : ''}`}>
                {i.status === 'void' ? 'Void' : 'Issued'}
              </span>
            </div>
            <p>
              {i.yardName}, {monthLabel(i.period)}
            </p>
            <p class="amount">{money(i.total, i.currency)}</p>
            <p class="muted">
              {i.issuedAt && <>Issued {dayLabel(i.issuedAt.slice(0, 10))}</>}
              {i.dueAt && i.status !== 'void' && <> · due {dayLabel(i.dueAt.slice(0, 10))}</>}
              {i.voidedAt && <> · voided {dayLabel(i.voidedAt.slice(0, 10))}</>}
            </p>
            <div class="actions">
              <button type="button" disabled={pdf.busy} onClick={() => void pdf.run(i)}>
                PDF<span class="visually-hidden"> of invoice {i.number}</span>
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Integer minor units of the currency (as billing speaks money) in the browser's locale: 15000 USD -> $150.00. */
function money(minor: number, currency: string): string {
  const f = new Intl.NumberFormat(undefined, { style: 'currency', currency });
  return f.format(minor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
}

/** "2026-10" as "October 2026". */
function monthLabel(period: string): string {
  const at = Date.parse(`${period}-15T12:00:00Z`);
  return Number.isNaN(at)
    ? period
    : new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(at);
}
