import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Each table is written by the module that owns it (docs/architecture.md "Dependencies"). Writes
 * are found as ChangeCapture calls (`changes.insert(db, 'trailer', ...)`), Kysely writes
 * (`insertInto('visit')`) and SQL text (`INSERT INTO visit`, `UPDATE auth_token SET`,
 * `DELETE FROM task_event`), in every file of shared/modules (subfolders count for their module:
 * billing/invoice, dashboard/rollups) and in the sync engine (shared/sync), which writes its own
 * tables and, for synced rows, only generic statements. A rule derived from another module's rows
 * is that module's, observed through shared/sync/row-observers.ts (docs/sync.md "Derived state").
 * A module that needs another's record changed calls that module's service; the few writes that
 * stay in another module are listed below with the reason, so no new one slips in.
 */
const ROOT = join(import.meta.dirname, '../..');
const MODULES = join(ROOT, 'shared/modules');
const SYNC_ENGINE = join(ROOT, 'shared/sync');
/** The writer name of the sync engine (shared/sync), beside the modules of shared/modules. */
const ENGINE = 'sync engine';

/** The module that owns each table written by some module or by the sync engine. */
const OWNER: Record<string, string> = {
  apiKey: 'auth',
  appointment: 'appointments',
  appointmentEvent: 'appointments',
  appUser: 'auth',
  authToken: 'auth',
  attachment: 'attachments',
  billingAutoRun: 'billing',
  billingCarrierConfig: 'billing',
  billingSummary: 'billing',
  billingYardConfig: 'billing',
  blobUpload: 'sync',
  camera: 'cameras',
  carrier: 'carriers',
  carrierUser: 'auth',
  changeLog: ENGINE,
  dashboardMovementCount: 'dashboard',
  dashboardTruckArrival: 'dashboard',
  dashboardYardFigure: 'dashboard',
  deadLetter: ENGINE,
  driver: 'drivers',
  driverSession: 'driver-app',
  emailMessage: 'email',
  emailSettings: 'email',
  gate: 'yards',
  gateActuation: 'hardware',
  integration: 'integrations',
  invoice: 'billing',
  invoiceAdjustment: 'billing',
  invoiceLine: 'billing',
  loadType: 'appointments',
  location: 'yards',
  movement: 'movements',
  pushToken: 'push',
  schedulingConfig: 'appointments',
  serverSecret: 'auth',
  sessionLocation: 'driver-app',
  setting: 'settings',
  site: 'sync',
  syncCursor: ENGINE,
  syncMeta: ENGINE,
  syncPending: ENGINE,
  syncTombstone: ENGINE,
  taskEvent: 'tasks',
  trailer: 'trailers',
  truck: 'trucks',
  truckInspection: 'trucks',
  visit: 'movements',
  yard: 'yards',
  yardTask: 'tasks',
  webhookAttempt: 'webhooks',
  webhookDelivery: 'webhooks',
  webhookEndpoint: 'webhooks',
  webhookEvent: 'webhooks',
};

/** Writes outside the owner, kept in the same transaction as the record that causes them. */
const KEPT: Record<string, string> = {
  'cameras -> gate':
    'gate.cameraIds mirrors camera.gateId: both sides change in one transaction (gate-binding.ts)',
  'sync -> syncMeta':
    'provisioning marks a site whose edge ran standalone under a sync_meta name that adoption reads (modules/sync/sites.ts, shared/sync/adoption.ts)',
  'sync engine -> pushToken':
    'a pushed token applied at the cloud replaces the older ones of its device or text before its own row is written, as savePushToken does at an edge (apply-rules.ts replacePushTokens)',
};

const CALL =
  /changes\.(?:insert|update|delete|upsert)\w*\(\s*[\w.]+\s*,\s*'(\w+)'|\.(?:insertInto|updateTable|deleteFrom)\(\s*'(\w+)'/g;
/** SQL text (upper-case keywords, so prose does not match); temp tables are a connection's own. */
const SQL = /\b(?:INSERT INTO|DELETE FROM) (?!temp\.)([a-z_]+)\b|\bUPDATE ([a-z_]+) SET\b/g;

const camel = (table: string) => table.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The tables each module (first folder under shared/modules) and the sync engine write. */
function writesByModule(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (writer: string, file: string) => {
    const tables = out.get(writer) ?? new Set<string>();
    out.set(writer, tables);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(CALL)) tables.add((m[1] ?? m[2])!);
    for (const m of text.matchAll(SQL)) tables.add(camel((m[1] ?? m[2])!));
  };
  for (const file of tsFiles(MODULES)) {
    const [module, ...rest] = relative(MODULES, file).split(sep);
    if (rest.length > 0) add(module!, file);
  }
  for (const file of tsFiles(SYNC_ENGINE)) add(ENGINE, file);
  return out;
}

describe('table owners', () => {
  const writes = writesByModule();

  it('finds the writes it checks (the patterns still match the code)', () => {
    expect(writes.get('carriers')).toContain('carrier');
    expect(writes.get('auth')).toContain('authToken');
    expect(writes.get('movements')).toContain('visit');
    // In subfolders, and as SQL text.
    expect(writes.get('billing')).toContain('invoice');
    expect(writes.get('dashboard')).toContain('dashboardYardFigure');
    expect(writes.get(ENGINE)).toContain('syncCursor');
    expect(writes.get(ENGINE)).toContain('changeLog');
  });

  it('every table a module or the sync engine writes has a named owner', () => {
    const unnamed = [...writes].flatMap(([writer, tables]) =>
      [...tables].filter((t) => !OWNER[t]).map((t) => `${writer} -> ${t}`),
    );
    expect(unnamed).toEqual([]);
  });

  it('a module or the sync engine writes only its own tables, apart from the writes listed with their reason', () => {
    const foreign = [...writes].flatMap(([module, tables]) =>
      [...tables].filter((t) => OWNER[t] !== module).map((t) => `${module} -> ${t}`),
    );
    expect(foreign.sort()).toEqual(Object.keys(KEPT).sort());
  });
});
