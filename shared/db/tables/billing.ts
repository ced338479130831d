/** Billing (migration 0006): configs, summaries, invoices and adjustments; local, never synced. */
import type { Generated } from 'kysely';

export interface BillingYardConfigTable {
  yardId: string;
  currency: string;
  taxRateBp: number;
  graceMinutes: Generated<number>;
  bookedSpaces: Generated<number>;
  spaceMonthlyRate: Generated<number>;
  overageDailyRate: Generated<number>;
  moveFee: Generated<number>;
  gateFee: Generated<number>;
  /** Migration 0017. */
  lateFee: Generated<number>;
  noShowFee: Generated<number>;
  minimumMonthly: Generated<number>;
  issuerName: string | null;
  issuerAddress: string | null;
  issuerTaxId: string | null;
  paymentTermsDays: Generated<number>;
  createdAt: number;
  updatedAt: number;
}

export interface BillingCarrierConfigTable {
  id: string;
  yardId: string;
  carrierId: string;
  /** null: the yard's value. */
  bookedSpaces: number | null;
  spaceMonthlyRate: number | null;
  overageDailyRate: number | null;
  moveFee: number | null;
  gateFee: number | null;
  /** Migration 0017. */
  lateFee: number | null;
  noShowFee: number | null;
  minimumMonthly: number | null;
  billToName: string | null;
  billToAddress: string | null;
  billToEmail: string | null;
  billToTaxId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface BillingSummaryTable {
  id: string;
  yardId: string;
  carrierId: string;
  period: string;
  currency: string;
  subtotal: number;
  tax: number;
  total: number;
  /** JSON of the computation (compute/types.ts BillingResult) with the rates and time zone used. */
  content: string;
  generatedAt: number;
  createdAt: number;
  updatedAt: number;
}

export type InvoiceStatus = 'draft' | 'issued' | 'void';

export interface InvoiceTable {
  id: string;
  number: string;
  /** The number for accounting imports, at most 21 characters (migration 0014; null only before it ran). */
  exportNumber: string | null;
  yardId: string;
  carrierId: string;
  period: string;
  sequence: number;
  status: InvoiceStatus;
  currency: string;
  subtotal: number;
  tax: number;
  total: number;
  /** JSON: the frozen computation, per-day table, annex, rates, time zone, issuer and bill-to. */
  content: string;
  generatedAt: number;
  issuedAt: number | null;
  voidedAt: number | null;
  voidReason: string | null;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface InvoiceAdjustmentTable {
  id: string;
  yardId: string;
  carrierId: string;
  period: string;
  /** Signed minor units: negative is a credit. */
  amount: number;
  description: string;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Migration 0008: the automatic drafts' claim per yard and period (billing/schedule.ts). */
export interface BillingAutoRunTable {
  yardId: string;
  period: string;
  /** The node (process run) holding the claim. */
  owner: string;
  startedAt: number;
  finishedAt: number | null;
  /** 1 once the yard's drafts were generated; 0 while running or when the yard waited for its site. */
  done: Generated<number>;
  /** JSON: what the run did (created, skipped, waiting counts) or the error. */
  result: string | null;
}
