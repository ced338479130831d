import { describe, expect, it } from 'vitest';
import { exportName, formulaRisk, neutralizeFormula } from '../../../shared/http/export-text.js';
import {
  EXPORT_NUMBER_MAX,
  exportNumberCandidates,
  invoiceNumber,
  shortNumber,
} from '../../../shared/modules/billing/invoice/number.js';

/** The rules behind the accounting exports (docs/domain.md "Billing", exports and invoice numbers). */
describe('names that reach the exports', () => {
  it('a formula character at the start, or after a separator, is a risk; anything else is a name', () => {
    for (const bad of [
      '=1+1',
      '+1',
      '-1',
      '@SUM(A1)',
      '\tx',
      '\rx',
      'Acme;=1+1',
      'A,+B',
      'A|@B',
      'A; -1',
      'A\n=B',
    ])
      expect(formulaRisk(bad), JSON.stringify(bad)).toBe(true);
    for (const ok of [
      'Prairie',
      "O'Hare Freight - East, Inc.",
      'A-1 Haulage',
      'Acme; Partners',
      '1+1',
      'a=b',
      '',
    ])
      expect(formulaRisk(ok), JSON.stringify(ok)).toBe(false);
  });

  it('the schema refuses them with words for the user, and keeps a good name exactly (trimmed)', () => {
    const schema = exportName(20);
    const refused = schema.safeParse('Acme;=1+1');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toContain('would read it as a formula');
    expect(schema.parse("  D'Arcy-Smith, Inc. ")).toBe("D'Arcy-Smith, Inc.");
    expect(schema.safeParse('').success).toBe(false);
    expect(schema.safeParse('x'.repeat(21)).success).toBe(false);
  });

  it('text stored before the check is neutralized at every formula start, and only there', () => {
    expect(neutralizeFormula('=1+1')).toBe("'=1+1");
    expect(neutralizeFormula('Acme;=1+1')).toBe("Acme;'=1+1");
    expect(neutralizeFormula('-A, +B; @C')).toBe("'-A, '+B; '@C");
    expect(neutralizeFormula("O'Hare - East")).toBe("O'Hare - East");
  });
});

describe('invoice numbers for accounting imports', () => {
  it('the full number: yard code, period, SCAC or the id’s last 8 letters and digits, then the sequence', () => {
    expect(invoiceNumber('DAL1', '2026-09', { id: 'x', scac: 'prfl' }, 1)).toBe('DAL1-202609-PRFL');
    expect(invoiceNumber('ACC1', '2026-10', { id: '0193-aaaa-59ac2073', scac: null }, 2)).toBe(
      'ACC1-202610-59AC2073-2',
    );
  });

  it('a number that fits is its own first candidate; a longer one gets 21 characters at most', () => {
    expect(exportNumberCandidates('DAL1-202609-PRFL', '2026-09').next().value).toBe('DAL1-202609-PRFL');
    const long = 'ACC1-202610-59AC2073-2'; // 22
    const first = exportNumberCandidates(long, '2026-10').next().value!;
    expect(first).toBe(shortNumber(long, '2026-10'));
    expect(first).toMatch(/^ACC1-2610-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(first.length).toBeLessThanOrEqual(EXPORT_NUMBER_MAX);
    const longest = shortNumber('ABCDEFGHIJKLMNOP-202610-59AC2073-12', '2026-10');
    expect(longest).toMatch(/^ABCDE-2610-[0-9A-Z]{10}$/);
    expect(longest).toHaveLength(21);
  });

  it('is deterministic, differs by number, and the next attempt is another form', () => {
    const n = 'LONGYARD-202610-PRFL-3';
    expect(shortNumber(n, '2026-10')).toBe(shortNumber(n, '2026-10'));
    expect(shortNumber(n, '2026-10')).not.toBe(shortNumber('LONGYARD-202610-PRFL-2', '2026-10'));
    const candidates = exportNumberCandidates(n, '2026-10');
    const [a, b, c] = [candidates.next().value, candidates.next().value, candidates.next().value];
    expect(new Set([a, b, c]).size).toBe(3);
    expect(a).toBe(shortNumber(n, '2026-10', 0));
    expect(b).toBe(shortNumber(n, '2026-10', 1));
  });

  it('many numbers of one yard and month give distinct short forms', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++)
      seen.add(shortNumber(`LONGYARDCODE-202610-${String(i).padStart(8, '0')}`, '2026-10'));
    expect(seen.size).toBe(20_000);
  });
});
