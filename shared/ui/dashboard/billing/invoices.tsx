import { useEffect, useState } from 'preact/hooks';
import { billingProblemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import type { Yard } from '../scope';
import { type BillingBase, carrierName, type InvoiceSummary, loadInvoiceSummaries } from './data';
import { GenerateForm } from './generate-form';
import { money } from './money';
import { periodLabel, recentPeriods } from './period';
import { StatusBadge } from './status-badge';

type Status = 'draft' | 'issued' | 'void';
export interface InvoiceFilters {
  yardId: string;
  carrierId: string;
  status: '' | Status;
  period: string;
}

/** Invoices: the light list (totals without lines) with its filters, and generating new drafts. */
export function InvoicesPage(props: {
  base: BillingBase;
  yards: Yard[];
  yardId: string;
  timeZone: string;
  canEdit: boolean;
  open: (invoiceId: string) => void;
}) {
  const { carriers } = props.base;
  const [filters, setFilters] = useState<InvoiceFilters>({
    yardId: props.yardId,
    carrierId: '',
    status: '',
    period: '',
  });
  const [rows, setRows] = useState<InvoiceSummary[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  const load = (cursor: string | undefined) =>
    loadInvoiceSummaries(
      {
        yardId: filters.yardId,
        carrierId: filters.carrierId,
        period: filters.period,
        ...(filters.status ? { status: filters.status } : {}),
      },
      cursor,
    );

  useEffect(() => {
    let live = true;
    setRows(null);
    setProblem(null);
    load(undefined).then(
      (page) => {
        if (!live) return;
        setRows(page.items);
        setNext(page.nextCursor);
      },
      (err: unknown) => live && setProblem(billingProblemText(err)),
    );
    return () => {
      live = false;
    };
  }, [filters, generation]);

  const more = async () => {
    if (!next) return;
    try {
      const page = await load(next);
      setRows((r) => [...(r ?? []), ...page.items]);
      setNext(page.nextCursor);
    } catch (err) {
      setProblem(billingProblemText(err));
    }
  };
  const set = (patch: Partial<InvoiceFilters>) => setFilters((f) => ({ ...f, ...patch }));
  const yardCode = (id: string) => props.yards.find((y) => y.id === id)?.code ?? id;
  const filtered = Boolean(filters.carrierId || filters.status || filters.period);

  return (
    <section aria-labelledby="invoices-heading">
      <h2 id="invoices-heading">Invoices</h2>
      {props.canEdit && props.base.config && (
        <GenerateForm
          yardId={props.yardId}
          timeZone={props.timeZone}
          carriers={carriers}
          onGenerated={props.open}
          onGeneratedAll={() => setGeneration((g) => g + 1)}
        />
      )}
      <fieldset class="filters">
        <legend>Show</legend>
        <label>
          Yard{' '}
          <select value={filters.yardId} onChange={(e) => set({ yardId: e.currentTarget.value })}>
            <option value="">All yards</option>
            {props.yards.map((y) => (
              <option key={y.id} value={y.id}>
                {y.name} ({y.code})
              </option>
            ))}
          </select>
        </label>
        <label>
          Carrier{' '}
          <select value={filters.carrierId} onChange={(e) => set({ carrierId: e.currentTarget.value })}>
            <option value="">All carriers</option>
            {carriers.map((c) => (
              <option key={c.id} value={c.id}>
                {carrierName(carriers, c.id)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status{' '}
          <select
            value={filters.status}
            onChange={(e) => set({ status: e.currentTarget.value as InvoiceFilters['status'] })}
          >
            <option value="">Any status</option>
            <option value="draft">Draft</option>
            <option value="issued">Issued</option>
            <option value="void">Void</option>
          </select>
        </label>
        <label>
          Month{' '}
          <select value={filters.period} onChange={(e) => set({ period: e.currentTarget.value })}>
            <option value="">Any month</option>
            {recentPeriods(props.timeZone, 25).map((p) => (
              <option key={p} value={p}>
                {periodLabel(p)}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {rows === null && !problem && <p class="muted">Loading…</p>}
      {rows && (
        <table class="billing-table invoice-list">
          <caption>Invoices, newest last</caption>
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Yard</th>
              <th scope="col">Carrier</th>
              <th scope="col">Month</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Subtotal
              </th>
              <th scope="col" class="num">
                Tax
              </th>
              <th scope="col" class="num">
                Total
              </th>
              <th scope="col">Generated</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && (
              <tr>
                <td colSpan={9}>
                  {filtered
                    ? 'No invoice matches these filters: widen them (any status, any month).'
                    : props.canEdit
                      ? 'No invoices yet: generate one for an ended month above.'
                      : 'No invoices yet.'}
                </td>
              </tr>
            )}
            {rows.map((r) => (
              <tr key={r.id}>
                <th scope="row">
                  <a
                    href={`/dashboard/billing/invoices/${r.id}`}
                    onClick={(e) => {
                      e.preventDefault();
                      props.open(r.id);
                    }}
                  >
                    {r.number}
                  </a>
                </th>
                <td>{yardCode(r.yardId)}</td>
                <td>{carrierName(carriers, r.carrierId)}</td>
                <td>{periodLabel(r.period)}</td>
                <td>
                  <StatusBadge status={r.status} />
                </td>
                <td class="num">{money(r.subtotal, r.currency)}</td>
                <td class="num">{money(r.tax, r.currency)}</td>
                <td class="num">{money(r.total, r.currency)}</td>
                <td>{yardDateTime(r.generatedAt, props.timeZone)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" onClick={more}>
          Show more
        </button>
      )}
    </section>
  );
}
