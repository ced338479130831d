import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Where billing is done is chosen once, at the composition root (docs/domain.md "Billing":
 * shared/services.ts builds billingHere or billingAtCloud of shared/modules/billing/index.ts). No
 * billing file asks again: not the write guard (`mayWrite`), not the sync mode or the role. Billing
 * writes no synced table, so no billing part takes the ChangeCapture (`changes`) either: asking it
 * was its only use. A failure names the file that asks.
 */
const ROOT = join(import.meta.dirname, '../../..');
const BILLING = join(ROOT, 'shared/modules/billing');

function files(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return files(full);
    return entry.name.endsWith('.ts')
      ? [{ path: relative(ROOT, full), text: readFileSync(full, 'utf8') }]
      : [];
  });
}

const ASKS_WHERE =
  /\bmayWrite\(|\bsync\.mode\b|\bsyncMode\(|\bconfig\.role\b|\bsyncSide\b|'changes'|\bchanges\./;

describe('billing: where it is done is chosen at the composition root', () => {
  it('no billing file asks the write guard, the sync mode or the role', () => {
    const askers = files(BILLING)
      .filter((f) => ASKS_WHERE.test(f.text))
      .map((f) => f.path);
    expect(askers).toEqual([]);
  });
});
