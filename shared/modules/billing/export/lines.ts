import type { InvoiceOutT } from '../invoice/schema.js';

/** One line as an invoice document shows it and an accounting import books it. */
export interface ExportLine {
  /** Stable name of the charge, used as the product/service of the imports. */
  item: string;
  description: string;
  quantity: number;
  /** Minor units. */
  unitAmount: number;
  /** Minor units, signed. */
  amount: number;
}

/** A negative total: the document is a credit note (DOMAIN.md "Billing"). */
export function isCreditNote(inv: { total: number }): boolean {
  return inv.total < 0;
}

/** An adjustment as recorded (description and signed amount). */
export interface AdjustmentRecord {
  description: string;
  amount: number;
}

/**
 * The invoice's charges as lines, in the order of the domain's formula. Zero charges are left out
 * (a clerk does not want "Minimum top-up 0.00"), except that an invoice with nothing else keeps its
 * space line so that every invoice has a line. Adjustments are listed one by one from their records
 * when those are still the ones the invoice froze (same count and sum, which an issued invoice
 * guarantees: adjustments of an invoiced period are refused); otherwise, e.g. for a void invoice whose
 * period was adjusted since, as the single frozen total.
 */
export function invoiceLines(invoice: InvoiceOutT, adjustments: readonly AdjustmentRecord[]): ExportLine[] {
  const l = invoice.lines;
  const charges: ExportLine[] = [
    {
      item: 'Booked spaces',
      description: `Booked spaces, ${invoice.period}`,
      quantity: l.space.quantity,
      unitAmount: l.space.unitAmount,
      amount: l.space.amount,
    },
    {
      item: 'Overage',
      description: `Overage unit-days above booked spaces, ${invoice.period}`,
      quantity: l.overage.quantity,
      unitAmount: l.overage.unitAmount,
      amount: l.overage.amount,
    },
    {
      item: 'Yard moves',
      description: `Completed yard moves, ${invoice.period}`,
      quantity: l.moves.quantity,
      unitAmount: l.moves.unitAmount,
      amount: l.moves.amount,
    },
    {
      item: 'Gate check-ins',
      description: `Gate check-ins, ${invoice.period}`,
      quantity: l.gate.quantity,
      unitAmount: l.gate.unitAmount,
      amount: l.gate.amount,
    },
    {
      item: 'Late arrivals',
      description: `Appointments that arrived late, ${invoice.period}`,
      quantity: l.late.quantity,
      unitAmount: l.late.unitAmount,
      amount: l.late.amount,
    },
    {
      item: 'No-shows',
      description: `Appointments not kept (no-show), ${invoice.period}`,
      quantity: l.noShow.quantity,
      unitAmount: l.noShow.unitAmount,
      amount: l.noShow.amount,
    },
    {
      item: 'Minimum top-up',
      description: `Top-up to the monthly minimum, ${invoice.period}`,
      quantity: 1,
      unitAmount: l.minimum.amount,
      amount: l.minimum.amount,
    },
  ].filter((line) => line.amount !== 0);
  const frozen = l.adjustments;
  const sameAsFrozen =
    adjustments.length === frozen.quantity && adjustments.reduce((s, a) => s + a.amount, 0) === frozen.amount;
  const adjustmentLines: ExportLine[] = sameAsFrozen
    ? adjustments.map((a) => ({
        item: 'Adjustment',
        description: a.description,
        quantity: 1,
        unitAmount: a.amount,
        amount: a.amount,
      }))
    : frozen.quantity > 0
      ? [
          {
            item: 'Adjustment',
            description: `Adjustments (${frozen.quantity}), ${invoice.period}`,
            quantity: 1,
            unitAmount: frozen.amount,
            amount: frozen.amount,
          },
        ]
      : [];
  const lines = [...charges, ...adjustmentLines];
  if (lines.length > 0) return lines;
  return [
    {
      item: 'Booked spaces',
      description: `Booked spaces, ${invoice.period}`,
      quantity: l.space.quantity,
      unitAmount: l.space.unitAmount,
      amount: 0,
    },
  ];
}

/**
 * The invoice's tax spread over its lines in proportion to their amounts (largest remainder), so
 * that an import that books tax per line adds up to the invoice's own tax to the minor unit. The
 * invoice rounds tax once on the subtotal; rounding per line could differ by a unit or two.
 */
export function spreadTax(lines: readonly ExportLine[], tax: number, subtotal: number): number[] {
  if (lines.length === 0) return [];
  if (subtotal === 0 || tax === 0) return lines.map(() => 0);
  const t = BigInt(tax);
  const s = BigInt(subtotal);
  const shares = lines.map((line) => {
    const product = BigInt(line.amount) * t;
    let q = product / s; // truncates toward zero
    let r = product - q * s;
    // floor division, so remainders are comparable
    if (r !== 0n && r < 0n !== s < 0n) {
      q -= 1n;
      r += s;
    }
    return { q, r: r < 0n ? -r : r };
  });
  let left = t - shares.reduce((acc, x) => acc + x.q, 0n);
  const order = shares
    .map((_, i) => i)
    .sort((a, b) => (shares[b]!.r > shares[a]!.r ? 1 : shares[b]!.r < shares[a]!.r ? -1 : a - b));
  const out = shares.map((x) => x.q);
  for (let k = 0; left !== 0n; k = (k + 1) % out.length) {
    const i = order[k]!;
    const step = left > 0n ? 1n : -1n;
    out[i] = out[i]! + step;
    left -= step;
  }
  return out.map(Number);
}
