/**
 * The contract of the pure billing computation (docs/domain.md "Billing"): what the summary and
 * invoice services hand it, and what it returns. No I/O and no clock of its own: `now` comes in.
 * Money is integer minor units of one currency; every amount is a safe integer (checked).
 */

/** The rates in force for one carrier in one yard: the carrier config's, else the yard's, else 0. */
export interface Rates {
  bookedSpaces: number;
  spaceMonthlyRate: number;
  overageDailyRate: number;
  moveFee: number;
  gateFee: number;
  /** Per appointment of the carrier that arrived late in the window. */
  lateFee: number;
  /** Per appointment of the carrier marked no-show in the window. */
  noShowFee: number;
  minimumMonthly: number;
}

/** One stay of one of the carrier's trailers in the yard (the carrier of its in-movement). */
export interface Visit {
  trailerId: string;
  /** Trailer number, for the annex. */
  trailerNumber?: string;
  inAt: number;
  /** null: still in the yard (present up to `now`). */
  outAt: number | null;
  inMovementId: string;
  outMovementId: string | null;
  /** Photo attachments of its movements, for the annex. */
  attachmentIds?: string[];
}

export interface BillingInput {
  /** `YYYY-MM`, a calendar month in the yard's time zone. */
  period: string;
  /** IANA zone of the yard. */
  timeZone: string;
  /** Epoch ms: the window ends at min(end of period, now); today's peak is the peak so far. */
  now: number;
  rates: Rates;
  graceMinutes: number;
  taxRateBp: number;
  /** The carrier's visits that may overlap the period (others are ignored). */
  visits: Visit[];
  /** Completed relocating tasks of the carrier's trailers with completedAt in the window. */
  moves: number;
  /** The carrier's `in` movements with `at` in the window. */
  checkIns: number;
  /** The carrier's appointments in the yard that arrived late in the window (absent: none). */
  lateArrivals?: number;
  /** The carrier's appointments in the yard marked no-show in the window (absent: none). */
  noShows?: number;
  /** Signed adjustments for (yard, carrier, period), minor units. */
  adjustments: number[];
}

/** One yard-local day of the period that has begun. */
export interface OverageDay {
  /** `YYYY-MM-DD`, yard-local. */
  date: string;
  peak: number;
  bookedSpaces: number;
  overage: number;
  amount: number;
}

/** amount = quantity x unitAmount, except ADJUSTMENTS (see BillingLines.adjustments). */
export interface Line {
  quantity: number;
  unitAmount: number;
  amount: number;
}

export interface BillingLines {
  space: Line;
  overage: Line;
  moves: Line;
  gate: Line;
  /** Appointments that arrived late x lateFee. */
  late: Line;
  /** Appointments marked no-show x noShowFee. */
  noShow: Line;
  /**
   * quantity 1, unitAmount = amount = the top-up to the minimum (0 when the charges reach it).
   * The appointment fees do not count towards the minimum.
   */
  minimum: Line;
  /**
   * quantity: the number of adjustments; amount (and unitAmount, so a one-line export adds up):
   * their signed sum. Not a product: show the adjustments one by one from their records.
   */
  adjustments: Line;
}

/** One visit in the annex: when it was present in the period, and its movements. */
export interface AnnexVisit {
  trailerId: string;
  trailerNumber?: string;
  inAt: number;
  outAt: number | null;
  /** Yard-local days of the period (begun by `now`) on which the visit was present (after grace). */
  daysPresent: number;
  inMovementId: string;
  outMovementId: string | null;
  attachmentIds: string[];
}

export interface BillingResult {
  period: string;
  timeZone: string;
  /** The inputs' terms, echoed so a stored result says what it was computed with. */
  rates: Rates;
  graceMinutes: number;
  taxRateBp: number;
  /** [start, end) epoch ms: start of the period to min(end of period, now). */
  window: { start: number; end: number };
  lines: BillingLines;
  /** Every yard-local day of the period that has begun by `now`, in order. */
  days: OverageDay[];
  /**
   * The visits present in the period (daysPresent > 0) or checked in within the window (a billed
   * check-in, even when shorter than the grace), by inAt then inMovementId.
   */
  annex: AnnexVisit[];
  subtotal: number;
  tax: number;
  total: number;
}
