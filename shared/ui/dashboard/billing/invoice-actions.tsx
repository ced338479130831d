import { useState } from 'preact/hooks';
import { billingProblemText, submitProblemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { ConfirmDialog } from './confirm-dialog';
import { deleteInvoice, type Invoice, issueInvoice, recalculateInvoice, voidInvoice } from './data';
import { downloadInvoiceCsv, downloadInvoicePdf } from './download';
import { money } from './money';
import { periodLabel } from './period';

type Pending = 'issue' | 'void' | 'delete' | null;

/**
 * What can be done with an invoice: a draft is recalculated, issued (final) or deleted; an issued
 * one is voided with a reason; any is downloaded as PDF, and the month's issued invoices, or its
 * credit notes, as CSV for Xero or QuickBooks Online.
 */
export function InvoiceActions(props: {
  invoice: Invoice;
  canEdit: boolean;
  onChanged: (invoice: Invoice | null, message: string) => void;
}) {
  const inv = props.invoice;
  const [pending, setPending] = useState<Pending>(null);
  // A download's refusal; a change's is the submit's own.
  const [downloadProblem, setDownloadProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const change = useSubmit(async (what: () => Promise<Invoice | null>, message: string) => {
    const out = await what();
    setPending(null);
    props.onChanged(out, message);
  });
  const busy = change.busy;
  const problem = downloadProblem ?? submitProblemText(change);
  const run = (what: () => Promise<Invoice | null>, message: string) => {
    setDownloadProblem(null);
    return change.run(what, message);
  };
  const save = async (what: () => Promise<string>) => {
    setDownloadProblem(null);
    change.clear();
    setSaved(null);
    try {
      setSaved(`Downloaded ${await what()}.`);
    } catch (err) {
      setDownloadProblem(billingProblemText(err));
    }
  };
  // Each accounting system imports invoices and credit notes through separate screens: one file each.
  const csv = (format: 'xero' | 'quickbooks', kind: 'invoice' | 'credit-note') =>
    save(() => downloadInvoiceCsv({ period: inv.period, format, kind, yardId: inv.yardId }));

  return (
    <div class="invoice-actions">
      {props.canEdit && inv.status === 'draft' && (
        <>
          <button type="button" class="primary" onClick={() => setPending('issue')}>
            Issue invoice
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              run(
                () => recalculateInvoice(inv),
                'The draft is recalculated from the activity and adjustments now.',
              )
            }
          >
            Recalculate draft
          </button>
          <button type="button" onClick={() => setPending('delete')}>
            Delete draft
          </button>
        </>
      )}
      {props.canEdit && inv.status === 'issued' && (
        <button type="button" class="danger" onClick={() => setPending('void')}>
          Void invoice
        </button>
      )}
      <button type="button" onClick={() => save(() => downloadInvoicePdf(inv.id, inv.number))}>
        Download PDF
      </button>
      <button
        type="button"
        onClick={() => csv('xero', 'invoice')}
        title="The month's issued invoices of this yard"
      >
        CSV for Xero
      </button>
      <button
        type="button"
        onClick={() => csv('quickbooks', 'invoice')}
        title="The month's issued invoices of this yard"
      >
        CSV for QuickBooks Online
      </button>
      <button
        type="button"
        onClick={() => csv('xero', 'credit-note')}
        title="The month's issued credit notes of this yard, for Xero's credit note import"
      >
        Credit notes for Xero
      </button>
      <button
        type="button"
        onClick={() => csv('quickbooks', 'credit-note')}
        title="The month's issued credit notes of this yard, for QuickBooks Online's credit memo import"
      >
        Credit memos for QuickBooks Online
      </button>
      {!pending && problem && <FormMessage kind="error">{problem}</FormMessage>}
      {saved && <FormMessage kind="ok">{saved}</FormMessage>}
      {pending === 'issue' && (
        <ConfirmDialog
          title={`Issue ${inv.number}?`}
          confirm="Issue invoice"
          busy={busy}
          problem={problem}
          onCancel={() => setPending(null)}
          onConfirm={() =>
            run(
              () => issueInvoice(inv),
              `${inv.number} is issued: it is final and goes into the month's CSV exports.`,
            )
          }
        >
          <p>
            Issuing makes the invoice final: its lines can no longer change. Total{' '}
            <strong>{money(inv.total, inv.currency)}</strong> for {periodLabel(inv.period)}.
          </p>
        </ConfirmDialog>
      )}
      {pending === 'void' && (
        <ConfirmDialog
          title={`Void ${inv.number}?`}
          confirm="Void invoice"
          danger
          busy={busy}
          problem={problem}
          reason={{ label: 'Reason for voiding', hint: 'Kept with the invoice and printed on its PDF.' }}
          onCancel={() => setPending(null)}
          onConfirm={(reason) =>
            run(() => voidInvoice(inv, reason), `${inv.number} is void. The month can be invoiced again.`)
          }
        >
          <p>
            A void invoice stays on record, cancelled. The carrier's {periodLabel(inv.period)} can then be
            invoiced again.
          </p>
        </ConfirmDialog>
      )}
      {pending === 'delete' && (
        <ConfirmDialog
          title={`Delete draft ${inv.number}?`}
          confirm="Delete draft"
          danger
          busy={busy}
          problem={problem}
          onCancel={() => setPending(null)}
          onConfirm={() => run(() => deleteInvoice(inv), `Draft ${inv.number} is deleted.`)}
        >
          <p>The draft goes away; generate it again whenever you like.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
