import { ProblemError } from './problem';

/**
 * What a screen adds to a refusal for one code: what to do next, where this screen knows better than
 * the general words (billing says where billing is managed). `said` is the problem in words (words.ts).
 */
export type Advice = Readonly<Record<string, (said: string, err: ProblemError) => string>>;

/**
 * The general advice. A record managed elsewhere (a linked edge answers 409 cloud-owned) says where
 * it is managed: the problem's detail names it.
 */
const GENERAL: Advice = {
  'cloud-owned': (_said, err) =>
    `${err.problem.detail ?? 'This record is managed in the cloud.'} Change it there; this site shows it read-only.`,
  forbidden: (said) => `${said} Ask an admin for a role that may do this.`,
};

/** What to tell the user about a failed call: the problem in words, then the advice for its code. */
export function problemText(err: unknown, advice: Advice = GENERAL): string {
  if (!(err instanceof ProblemError)) return 'Something went wrong. Try again.';
  const advise = advice[err.code];
  return advise ? advise(err.message, err) : err.message;
}

/** What the billing screens say when the API refuses: the problem's own words, then what to do. */
export const BILLING_ADVICE: Advice = {
  'cloud-owned': (said) =>
    `Billing is managed in the cloud: ${said} Open the dashboard at the cloud to see and change it.`,
  'billing-not-configured': (said) => `${said} Set up the yard's billing under Configs first.`,
  // site-not-synced: the server says why in words and what to do (wait, or generate anyway: the
  // button beside), so it has no advice here.
  'invoice-exists': (said) =>
    `${said} Open it from the invoice list (void an issued one first to invoice the period again).`,
  'period-invoiced': (said) =>
    `${said} Void the issued invoice first, then change the adjustments and generate it again.`,
  'period-not-past': (said) =>
    `${said} Invoices are made once the month has ended; the summary shows the ongoing month.`,
  forbidden: (said) => `${said} Ask an admin for the billing role.`,
};

export function billingProblemText(err: unknown): string {
  return problemText(err, BILLING_ADVICE);
}

/** Whether a load failed only because this site does not own billing (a linked edge). */
export function isCloudOwned(err: unknown): boolean {
  return err instanceof ProblemError && err.code === 'cloud-owned';
}

/** A billing form's refusal in words (useSubmit's state), or null when there is none to show. */
export function submitProblemText(s: { problem: ProblemError | null; failed: boolean }): string | null {
  return s.problem || s.failed ? billingProblemText(s.problem) : null;
}
