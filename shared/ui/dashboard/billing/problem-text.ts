import { ProblemError } from '../../common/api/problem';

/** What the billing screens say when the API refuses: the problem's own words, then what to do. */
export function billingProblemText(err: unknown): string {
  if (!(err instanceof ProblemError)) return 'Something went wrong. Try again.';
  const said = err.message;
  switch (err.code) {
    case 'cloud-owned':
      return `Billing is managed in the cloud: ${said} Open the dashboard at the cloud to see and change it.`;
    case 'billing-not-configured':
      return `${said} Set up the yard's billing under Configs first.`;
    case 'site-not-synced':
      // The server says why in words and what to do (wait, or generate anyway: the button beside).
      return said;
    case 'invoice-exists':
      return `${said} Open it from the invoice list (void an issued one first to invoice the period again).`;
    case 'period-invoiced':
      return `${said} Void the issued invoice first, then change the adjustments and generate it again.`;
    case 'period-not-past':
      return `${said} Invoices are made once the month has ended; the summary shows the ongoing month.`;
    case 'forbidden':
      return `${said} Ask an admin for the billing role.`;
    default:
      return said;
  }
}

/** Whether a load failed only because this site does not own billing (a linked edge). */
export function isCloudOwned(err: unknown): boolean {
  return err instanceof ProblemError && err.code === 'cloud-owned';
}

/** The words for a useSubmit's last refusal or failure; null when it went through (or never ran). */
export function submitProblemText(s: { problem: ProblemError | null; failed: boolean }): string | null {
  return s.problem || s.failed ? billingProblemText(s.problem) : null;
}
