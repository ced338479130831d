import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Each table is written by the module that owns it (docs/architecture.md "Dependencies"). Writes
 * are found as ChangeCapture calls (`changes.insert(db, 'trailer', ...)`) and raw Kysely writes in
 * shared/modules. A module that needs another's record changed calls that module's service; the
 * few writes that stay in another module are listed below with the reason, so no new one slips in.
 */
const MODULES = join(import.meta.dirname, '../../shared/modules');

/** The module that owns each table written by some module. */
const OWNER: Record<string, string> = {
  apiKey: 'auth',
  appUser: 'auth',
  authToken: 'auth',
  attachment: 'attachments',
  billingAutoRun: 'billing',
  blobUpload: 'sync',
  camera: 'cameras',
  carrier: 'carriers',
  driver: 'drivers',
  driverSession: 'driver-app',
  gate: 'yards',
  gateActuation: 'hardware',
  integration: 'integrations',
  location: 'yards',
  movement: 'movements',
  pushToken: 'push',
  serverSecret: 'auth',
  sessionLocation: 'driver-app',
  setting: 'settings',
  site: 'sync',
  syncMeta: 'sync',
  taskEvent: 'tasks',
  trailer: 'trailers',
  truck: 'trucks',
  truckInspection: 'trucks',
  visit: 'movements',
  yard: 'yards',
  yardTask: 'tasks',
};

/** Writes outside the owner, kept in the same transaction as the record that causes them. */
const KEPT: Record<string, string> = {
  'cameras -> gate':
    'gate.cameraIds mirrors camera.gateId: both sides change in one transaction (gate-binding.ts)',
};

const WRITE =
  /changes\.(?:insert|update|delete|upsert)\w*\(\s*[\w.]+\s*,\s*'(\w+)'|\.(?:insertInto|updateTable|deleteFrom)\(\s*'(\w+)'/g;

function writesByModule(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const module of readdirSync(MODULES, { withFileTypes: true })) {
    if (!module.isDirectory()) continue;
    const tables = new Set<string>();
    for (const file of readdirSync(join(MODULES, module.name))) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(MODULES, module.name, file), 'utf8');
      for (const m of text.matchAll(WRITE)) tables.add((m[1] ?? m[2])!);
    }
    out.set(module.name, tables);
  }
  return out;
}

describe('table owners', () => {
  const writes = writesByModule();

  it('finds the writes it checks (the pattern still matches the code)', () => {
    expect(writes.get('carriers')).toContain('carrier');
    expect(writes.get('auth')).toContain('authToken');
    expect(writes.get('movements')).toContain('visit');
  });

  it('every table a module writes has a named owner', () => {
    const unnamed = [...writes.values()].flatMap((tables) => [...tables].filter((t) => !OWNER[t]));
    expect(unnamed).toEqual([]);
  });

  it('a module writes only its own tables, apart from the writes listed with their reason', () => {
    const foreign = [...writes].flatMap(([module, tables]) =>
      [...tables].filter((t) => OWNER[t] !== module).map((t) => `${module} -> ${t}`),
    );
    expect(foreign.sort()).toEqual(Object.keys(KEPT).sort());
  });
});
