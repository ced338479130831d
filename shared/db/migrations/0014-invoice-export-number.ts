import { exportNumberCandidates } from '../../modules/billing/invoice/number.js';
import type { MigrationFill } from '../migration-fill.js';

/**
 * Invoice numbers for accounting imports (docs/domain.md "Billing", invoice numbers): QuickBooks
 * Online takes at most 21 characters, and a full number `{yardCode}-{YYYYMM}-{party}[-n]` can be
 * longer. `export_number` is the full number where it fits, else its short form; unique across the
 * organisation (the index, in both databases; NULLs are not compared, and none is left: every
 * invoice written since has one, and the invoices already there get theirs below).
 */
export const up = `
ALTER TABLE invoice ADD COLUMN export_number TEXT;
CREATE UNIQUE INDEX invoice_export_number ON invoice (export_number);
`;

/**
 * The invoices already there get the export number the service would give them (the same
 * candidates, shared/modules/billing/invoice/number.ts), in creation order: should two short forms
 * collide, the older invoice keeps the first.
 */
export const fill: MigrationFill = {
  select: 'SELECT id, number, period FROM invoice ORDER BY id',
  table: 'invoice',
  column: 'export_number',
  compute(rows) {
    const taken = new Set<string>();
    return rows.map((row) => {
      for (const candidate of exportNumberCandidates(String(row.number), String(row.period))) {
        if (taken.has(candidate)) continue;
        taken.add(candidate);
        return { id: String(row.id), value: candidate };
      }
      throw new Error('unreachable: the candidates never end');
    });
  },
};
