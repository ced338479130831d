/**
 * Billing (docs/domain.md "Billing"): the yards' and carriers' billing configs, the stored
 * summaries, invoices and adjustments. Billing lives where every site's movements meet (the cloud,
 * or a standalone edge) and is never synced: no change_log, no hlc.
 * - Money is integer minor units of the yard's `currency` (ISO 4217); `tax_rate_bp` is basis points.
 * - A carrier config's rate columns are NULL to inherit the yard's (a rate unset at both is 0).
 * - An invoice's `content` is the frozen computation (JSON: lines, per-day overage table, per-visit
 *   annex, rates, time zone, issuer and bill-to); its totals are columns for lists and exports.
 *   At most one invoice that is not void per yard, carrier and period; `sequence` counts the
 *   invoices of that key (1, then 2 and 3 after voids: the number's `-2`, `-3`).
 */
export const up = `
CREATE TABLE billing_yard_config (
  yard_id TEXT PRIMARY KEY,
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  tax_rate_bp INTEGER NOT NULL CHECK (tax_rate_bp >= 0),
  grace_minutes INTEGER NOT NULL DEFAULT 0 CHECK (grace_minutes >= 0),
  booked_spaces INTEGER NOT NULL DEFAULT 0 CHECK (booked_spaces >= 0),
  space_monthly_rate bigint NOT NULL DEFAULT 0 CHECK (space_monthly_rate >= 0),
  overage_daily_rate bigint NOT NULL DEFAULT 0 CHECK (overage_daily_rate >= 0),
  move_fee bigint NOT NULL DEFAULT 0 CHECK (move_fee >= 0),
  gate_fee bigint NOT NULL DEFAULT 0 CHECK (gate_fee >= 0),
  minimum_monthly bigint NOT NULL DEFAULT 0 CHECK (minimum_monthly >= 0),
  issuer_name TEXT,
  issuer_address TEXT,
  issuer_tax_id TEXT,
  payment_terms_days INTEGER NOT NULL DEFAULT 30 CHECK (payment_terms_days >= 0),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);

CREATE TABLE billing_carrier_config (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES billing_yard_config (yard_id) ON DELETE CASCADE,
  carrier_id TEXT NOT NULL,
  booked_spaces INTEGER CHECK (booked_spaces >= 0),
  space_monthly_rate bigint CHECK (space_monthly_rate >= 0),
  overage_daily_rate bigint CHECK (overage_daily_rate >= 0),
  move_fee bigint CHECK (move_fee >= 0),
  gate_fee bigint CHECK (gate_fee >= 0),
  minimum_monthly bigint CHECK (minimum_monthly >= 0),
  bill_to_name TEXT,
  bill_to_address TEXT,
  bill_to_email TEXT,
  bill_to_tax_id TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  UNIQUE (yard_id, carrier_id)
);
CREATE INDEX billing_carrier_config_carrier ON billing_carrier_config (carrier_id);

CREATE TABLE billing_summary (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL,
  carrier_id TEXT NOT NULL,
  period TEXT NOT NULL,
  currency TEXT NOT NULL,
  subtotal bigint NOT NULL,
  tax bigint NOT NULL,
  total bigint NOT NULL,
  content TEXT NOT NULL,
  generated_at bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  UNIQUE (yard_id, carrier_id, period)
);
CREATE INDEX billing_summary_period ON billing_summary (period);

CREATE TABLE invoice (
  id TEXT PRIMARY KEY,
  number TEXT NOT NULL UNIQUE,
  yard_id TEXT NOT NULL,
  carrier_id TEXT NOT NULL,
  period TEXT NOT NULL,
  sequence INTEGER NOT NULL CHECK (sequence >= 1),
  status TEXT NOT NULL CHECK (status IN ('draft', 'issued', 'void')),
  currency TEXT NOT NULL,
  subtotal bigint NOT NULL,
  tax bigint NOT NULL,
  total bigint NOT NULL,
  content TEXT NOT NULL,
  generated_at bigint NOT NULL,
  issued_at bigint,
  voided_at bigint,
  void_reason TEXT,
  created_by TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  UNIQUE (yard_id, carrier_id, period, sequence)
);
CREATE UNIQUE INDEX invoice_one_live ON invoice (yard_id, carrier_id, period) WHERE status <> 'void';
CREATE INDEX invoice_period ON invoice (period, yard_id);

CREATE TABLE invoice_adjustment (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL,
  carrier_id TEXT NOT NULL,
  period TEXT NOT NULL,
  amount bigint NOT NULL,
  description TEXT NOT NULL,
  created_by TEXT,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX invoice_adjustment_key ON invoice_adjustment (yard_id, carrier_id, period);
`;
