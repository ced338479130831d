import type { Server } from 'node:http';
import { expect } from 'vitest';
import { SimulatedGates } from '../../../edge/hardware/simulated-gates.js';
import { createApp } from '../../../shared/app.js';
import { CAMERA_PROVIDER_KINDS } from '../../../shared/cameras/providers/index.js';
import type { ManualClock } from '../../../shared/clock.js';
import { loadConfig } from '../../../shared/config.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seed, seedRows } from '../../helpers/builders.js';
import { copyEdgeRows } from '../../helpers/edge-rows.js';
import { Client, query, rows } from '../../helpers/http.js';
import type { TestDialect } from '../../helpers/postgres.js';
import { ADMIN, loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Billing at the cloud (on the suite's database) for one UTC yard (code B1), its billing config,
 * and two carriers: Prairie (SCAC PRFL, with a carrier config) and an unnamed-SCAC carrier without
 * one. The yard's site is a standalone edge (SQLite) where activity is recorded through its real
 * API at the clock's time: check-ins and check-outs (POST /api/movement) and moves done by a yard
 * driver (start, complete). What the site recorded is then carried to the cloud as the site's sync
 * delivers it (siteToCloud: its rows, as they are), and the cloud's master data down to the site.
 */
export interface BillingWorld {
  /** The cloud, where billing runs. */
  t: TestApp<AppDatabase>;
  /** An admin of the cloud. */
  admin: Client;
  /** The yard's site (a standalone edge), where gate movements and moves are recorded. */
  site: TestApp;
  siteAdmin: Client;
  clock: ManualClock;
  yardId: string;
  doorId: string;
  prairie: string;
  noScac: string;
  /** A yard driver of the site, logged in there. */
  driver: { id: string; client: Client };
}

/** Yard rates (minor units of USD): the numbers the hand calculations in the tests use. */
export const YARD_RATES = {
  bookedSpaces: 1,
  spaceMonthlyRate: 10_000,
  overageDailyRate: 1_500,
  moveFee: 2_500,
  gateFee: 500,
  minimumMonthly: 0,
};

export async function startBillingWorld(
  clock: ManualClock,
  options: { dialect?: TestDialect } = {},
): Promise<BillingWorld> {
  // The clock walks through months of activity: tokens that outlive it (a year) keep the logins.
  const env: Record<string, string> = {
    YARD_STAFF_TOKEN_TTL_HOURS: '9000',
    YARD_DRIVER_TOKEN_TTL_HOURS: '9000',
  };
  const t = await startTestApp({
    clock,
    dialect: options.dialect ?? 'sqlite',
    env: { ...env, YARD_ROLE: 'cloud' },
  });
  const site = await startTestApp({ clock, env });
  const admin = new Client(t.url, t.adminToken);
  const siteAdmin = new Client(site.url, site.adminToken);
  const res = await siteAdmin.put('/api/settings', { settings: { 'tasks.autoAssign': false } });
  expect(res.status, res.text).toBe(200);
  const rowsOf = seedRows(t);
  const yardId = await rowsOf.yard('B1', { timeZone: 'UTC' });
  const prairie = await rowsOf.carrier('Prairie Freight', { scac: 'PRFL' });
  const noScac = await rowsOf.carrier('Lone Hauler');
  // Where the moves take a trailer: a task that relocates one needs a destination.
  const doorId = await rowsOf.location(yardId, 'Door 1', 'door');
  const now = clock.now();
  // Configs are written straight to their tables: their own routes are another piece of work.
  await t.core.kysely
    .insertInto('billingYardConfig')
    .values({
      yardId,
      currency: 'USD',
      taxRateBp: 825,
      graceMinutes: 0,
      ...YARD_RATES,
      issuerName: 'B1 Yard Services',
      issuerAddress: '1 Dock Rd',
      issuerTaxId: 'TX-1',
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  await t.core.kysely
    .insertInto('billingCarrierConfig')
    .values({
      id: newId(),
      yardId,
      carrierId: prairie,
      bookedSpaces: null,
      spaceMonthlyRate: null,
      overageDailyRate: null,
      moveFee: null,
      gateFee: null,
      minimumMonthly: 30_000,
      billToName: 'Prairie Freight AP',
      billToAddress: '9 Ledger Ave',
      billToEmail: 'ap@prairie.example',
      billToTaxId: null,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  await copyEdgeRows(t.db, site.db, CLOUD_TO_SITE);
  const driver = await seed(siteAdmin).yardDriver({ firstName: 'Jo' });
  return { t, admin, site, siteAdmin, clock, yardId, doorId, prairie, noScac, driver };
}

/** Closes the cloud and the site. */
export async function closeBillingWorld(w: BillingWorld | undefined): Promise<void> {
  await w?.t.close();
  await w?.site.close();
}

/** The cloud's master data the site's activity refers to (yards, carriers), as its sync sends it down. */
const CLOUD_TO_SITE = ['yard', 'location', 'carrier'] as const;
/** What the site records and billing reads, parents first (as its sync sends it up). */
const SITE_TO_CLOUD = ['driver', 'trailer', 'movement', 'visit', 'yard_task'] as const;

export function cloudToSite(w: BillingWorld): Promise<void> {
  return copyEdgeRows(w.t.db, w.site.db, CLOUD_TO_SITE);
}

export function siteToCloud(w: BillingWorld): Promise<void> {
  return copyEdgeRows(w.site.db, w.t.db, SITE_TO_CLOUD);
}

/** Checks a trailer in (a new trailer of `carrierId` on first use) at `at`; returns the movement. */
export async function checkIn(w: BillingWorld, at: string, number: string, carrierId: string) {
  w.clock.set(at);
  await cloudToSite(w);
  const res = await w.siteAdmin.post('/api/movement', {
    yardId: w.yardId,
    direction: 'in',
    at,
    // The carrier only with the new trailer: the movement and the visit take it from there.
    trailer: { number, carrierId },
  });
  expect(res.status, res.text).toBe(201);
  await siteToCloud(w);
  return res.body as { id: string; trailerId: string };
}

export async function checkOut(w: BillingWorld, at: string, trailerId: string) {
  w.clock.set(at);
  const res = await w.siteAdmin.post('/api/movement', {
    yardId: w.yardId,
    direction: 'out',
    at,
    trailer: { id: trailerId },
  });
  expect(res.status, res.text).toBe(201);
  await siteToCloud(w);
  return res.body as { id: string };
}

/** A task of `type` on the trailer, assigned to the driver, started and completed at `at`. */
export async function completeTask(w: BillingWorld, at: string, trailerId: string, type = 'move') {
  w.clock.set(at);
  const sessions = rows(
    w.site.db,
    'SELECT id FROM driver_session WHERE driver_id = ? AND ended_at IS NULL',
    w.driver.id,
  );
  if (sessions.length === 0) {
    await w.site.core.changes.insert(w.site.core.kysely, 'driverSession', {
      id: newId(),
      driverId: w.driver.id,
      yardId: w.yardId,
      deviceId: 'phone-1',
      startedAt: w.clock.now(),
      endedAt: null,
      endReason: null,
      lastCheckAt: w.clock.now(),
      lastLat: null,
      lastLon: null,
      lastLocationAt: null,
      createdAt: w.clock.now(),
      updatedAt: w.clock.now(),
    });
  }
  const task = await w.siteAdmin.post('/api/yard-task', {
    yardId: w.yardId,
    type,
    trailerId,
    toLocationId: w.doorId,
    driverId: w.driver.id,
  });
  expect(task.status, task.text).toBe(201);
  for (const op of ['start', 'complete']) {
    const res = await w.driver.client.post(`/api/yard-task/driver/${op}`, { taskIds: [task.body.id] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results[0].ok, JSON.stringify(res.body.results[0])).toBe(true);
  }
  await siteToCloud(w);
  return task.body.id as string;
}

/** Every row of the billing tables, to prove a refused request changed nothing. */
export const billingRows = async (w: BillingWorld) => ({
  invoices: await query(w.t.db, 'SELECT * FROM invoice ORDER BY id'),
  adjustments: await query(w.t.db, 'SELECT * FROM invoice_adjustment ORDER BY id'),
  summaries: await query(w.t.db, 'SELECT * FROM billing_summary ORDER BY id'),
});

/**
 * February 2026 (UTC yard), the activity the invoice tests compute by hand:
 * - Prairie T1 in 30 Jan 10:00 (before the period: its check-in is January's), out 5 Feb 10:00;
 *   T2 in 2 Feb 08:00, out 10 Feb 10:00; T3 in 2 Feb 12:00, out 3 Feb 09:00; a move of T2 done
 *   4 Feb 11:00, and a shunt of T2 done 6 Feb 11:00.
 * - Lone Hauler N1 in 15 Feb 08:00, out 16 Feb 08:00.
 */
export async function seedFebruary(w: BillingWorld) {
  const t1 = await checkIn(w, '2026-01-30T10:00:00.000Z', 'T1', w.prairie);
  const t2 = await checkIn(w, '2026-02-02T08:00:00.000Z', 'T2', w.prairie);
  const t3 = await checkIn(w, '2026-02-02T12:00:00.000Z', 'T3', w.prairie);
  await checkOut(w, '2026-02-03T09:00:00.000Z', t3.trailerId);
  await completeTask(w, '2026-02-04T11:00:00.000Z', t2.trailerId, 'move');
  await checkOut(w, '2026-02-05T10:00:00.000Z', t1.trailerId);
  await completeTask(w, '2026-02-06T11:00:00.000Z', t2.trailerId, 'shunt');
  await checkOut(w, '2026-02-10T10:00:00.000Z', t2.trailerId);
  const n1 = await checkIn(w, '2026-02-15T08:00:00.000Z', 'N1', w.noScac);
  await checkOut(w, '2026-02-16T08:00:00.000Z', n1.trailerId);
  return { t1, t2, t3, n1 };
}

/** The app as an edge linked to a cloud (an MQTT URL) on the test app's database, over real HTTP. */
export async function serveLinkedEdge(seedApp: TestApp<AppDatabase>) {
  const config = loadConfig(
    {
      YARD_DATA_DIR: seedApp.dir,
      YARD_ADMIN_USER: ADMIN.username,
      YARD_ADMIN_PASSWORD: ADMIN.password,
      YARD_MQTT_URL: 'mqtt://127.0.0.1:9',
    },
    { validateResponses: true },
  );
  const yardApp = createApp({
    db: seedApp.db,
    config,
    gates: new SimulatedGates(undefined, 0),
    cameras: {
      onvif: {
        describe: () => Promise.reject(new Error('no camera')),
        snapshot: () => Promise.reject(new Error('no camera')),
        discover: async () => [],
      },
      providers: CAMERA_PROVIDER_KINDS,
    },
  });
  const server = await new Promise<Server>((ok) => {
    const s = yardApp.app.listen(0, '127.0.0.1', () => ok(s));
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    admin: new Client(url, await loginAdmin(url)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await yardApp.stop();
    },
  };
}
