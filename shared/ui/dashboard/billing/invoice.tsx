import { useEffect, useState } from 'preact/hooks';
import { billingProblemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { duration, yardDateTime } from '../../common/time';
import type { Yard } from '../scope';
import { type Adjustment, type BillingBase, type Invoice, loadInvoice } from './data';
import { InvoiceActions } from './invoice-actions';
import { LinesTable } from './lines-table';
import { count, money } from './money';
import { OverageTable } from './overage-table';
import { periodLabel, yardDate } from './period';
import { StatusBadge } from './status-badge';

function Party(props: { title: string; name: string | null; lines: (string | null | undefined)[] }) {
  return (
    <div class="party">
      <h3>{props.title}</h3>
      <p>
        <strong>{props.name ?? 'Not set'}</strong>
        {props.lines.filter(Boolean).map((l) => (
          <span key={l}>
            <br />
            {l}
          </span>
        ))}
      </p>
    </div>
  );
}

/**
 * One invoice: who bills whom, its status and dates, the lines and totals, the adjustments of its
 * month, the per-day overage table and the per-visit annex; the actions its status allows.
 */
export function InvoicePage(props: {
  id: string;
  base: BillingBase;
  yards: Yard[];
  canEdit: boolean;
  back: () => void;
  addAdjustment: (invoice: Invoice) => void;
}) {
  const [invoice, setInvoice] = useState<Invoice | null>(null);
  const [adjustments, setAdjustments] = useState<Adjustment[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    setProblem(null);
    loadInvoice(props.id).then(
      (read) => {
        if (!live) return;
        setInvoice(read.invoice);
        setAdjustments(read.adjustments);
      },
      (err: unknown) => live && setProblem(billingProblemText(err)),
    );
    return () => {
      live = false;
    };
  }, [props.id, generation]);

  if (problem && !invoice) {
    return (
      <section>
        <FormMessage kind="error">{problem}</FormMessage>
        <button type="button" onClick={props.back}>
          Back to the invoices
        </button>
      </section>
    );
  }
  if (!invoice) return <p class="muted">Loading the invoice…</p>;
  const inv = invoice;
  const tz = inv.timeZone;
  const yard = props.yards.find((y) => y.id === inv.yardId);
  const m = (n: number) => money(n, inv.currency);
  const due = inv.issuedAt
    ? new Date(Date.parse(inv.issuedAt) + inv.paymentTermsDays * 86_400_000).toISOString()
    : null;
  return (
    <section aria-labelledby="invoice-heading" class="invoice">
      <p>
        <a
          href="/dashboard/billing/invoices"
          onClick={(e) => {
            e.preventDefault();
            props.back();
          }}
        >
          ← All invoices
        </a>
      </p>
      <div class="panel-head">
        <h2 id="invoice-heading">
          {inv.total < 0 ? 'Credit note' : 'Invoice'} {inv.number} <StatusBadge status={inv.status} />
        </h2>
        <p class="invoice-total">
          Total <strong>{m(inv.total)}</strong>
        </p>
      </div>
      {inv.exportNumber !== inv.number && (
        <p class="muted">
          Accounting number <strong>{inv.exportNumber}</strong>: the full number is longer than accounting
          systems take (21 characters), so the exports and the PDF carry this one beside it.
        </p>
      )}
      {message && <FormMessage kind="ok">{message}</FormMessage>}
      {inv.status === 'void' && (
        <FormMessage kind="warn">
          Voided {yardDateTime(inv.voidedAt, tz)}: {inv.voidReason}
        </FormMessage>
      )}
      <InvoiceActions
        invoice={inv}
        canEdit={props.canEdit}
        onChanged={(out, text) => {
          setMessage(text);
          if (out) setInvoice(out);
          else props.back();
          setGeneration((g) => g + 1);
        }}
      />
      <div class="invoice-head">
        <Party
          title="From"
          name={inv.issuer.name}
          lines={[inv.issuer.address, inv.issuer.taxId && `Tax id ${inv.issuer.taxId}`]}
        />
        <Party
          title="Bill to"
          name={inv.billTo.name}
          lines={[
            inv.billTo.address,
            inv.billTo.email,
            inv.billTo.taxId && `Tax id ${inv.billTo.taxId}`,
            inv.billTo.scac && `SCAC ${inv.billTo.scac}`,
          ]}
        />
        <dl class="billing-facts">
          <dt>Yard</dt>
          <dd>{yard ? `${yard.name} (${yard.code})` : inv.yardId}</dd>
          <dt>Month</dt>
          <dd>
            {periodLabel(inv.period)} ({tz})
          </dd>
          <dt>Generated</dt>
          <dd>{yardDateTime(inv.generatedAt, tz)}</dd>
          <dt>Issued</dt>
          <dd>{inv.issuedAt ? yardDateTime(inv.issuedAt, tz) : 'Not yet (draft)'}</dd>
          {/* A credit note is owed to the bill-to party: nothing falls due (as on its PDF). */}
          {inv.total >= 0 && (
            <>
              <dt>Due</dt>
              <dd>{due ? yardDate(due, tz) : `${count(inv.paymentTermsDays)} days after issue`}</dd>
            </>
          )}
        </dl>
      </div>
      <div class="summary-columns">
        <div>
          <LinesTable
            lines={inv.lines}
            subtotal={inv.subtotal}
            tax={inv.tax}
            total={inv.total}
            taxRateBp={inv.taxRateBp}
            currency={inv.currency}
            caption={`Charges for ${periodLabel(inv.period)}`}
          />
          <h3>Adjustments</h3>
          {adjustments.length === 0 ? (
            <p class="muted">No adjustments for this carrier and month.</p>
          ) : (
            <ul class="adjustment-list">
              {adjustments.map((a) => (
                <li key={a.id}>
                  <strong>{m(a.amount)}</strong> {a.description}
                </li>
              ))}
            </ul>
          )}
          {props.canEdit && inv.status === 'draft' && (
            <button type="button" onClick={() => props.addAdjustment(inv)}>
              Add an adjustment for this month
            </button>
          )}
        </div>
        <OverageTable days={inv.days} currency={inv.currency} caption={`Overage per day (days in ${tz})`} />
      </div>
      <details class="annex">
        <summary>
          Annex: {count(inv.annex.length)} visits of the month (arrival, departure, days present)
        </summary>
        {inv.annex.length === 0 ? (
          <p class="muted">No trailer of this carrier was in the yard this month.</p>
        ) : (
          <AnnexTable annex={inv.annex} timeZone={tz} />
        )}
      </details>
    </section>
  );
}

function AnnexTable(props: { annex: Invoice['annex']; timeZone: string }) {
  const tz = props.timeZone;
  return (
    <table class="billing-table annex-table">
      <caption>Visits in arrival order (times in {tz})</caption>
      <thead>
        <tr>
          <th scope="col">Trailer</th>
          <th scope="col">In</th>
          <th scope="col">Out</th>
          <th scope="col">Stay</th>
          <th scope="col" class="num">
            Days present
          </th>
        </tr>
      </thead>
      <tbody>
        {props.annex.map((v) => (
          <tr key={v.inMovementId}>
            <th scope="row">{v.trailerNumber ?? v.trailerId}</th>
            <td>{yardDateTime(v.inAt, tz)}</td>
            <td>{v.outAt ? yardDateTime(v.outAt, tz) : 'Still in the yard'}</td>
            <td>{v.outAt ? duration(Date.parse(v.outAt) - Date.parse(v.inAt)) : ''}</td>
            <td class="num">{count(v.daysPresent)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
