import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { planAppointments } from '../edge/demo-appointment-plan.js';
import {
  movementLinksWriter,
  pastAppointmentsWriter,
  recordGateMovements,
} from '../edge/demo-appointment-records.js';
import { bookUpcoming } from '../edge/demo-appointments.js';
import { completedMovesWriter, seedBillingConfigs, seedBillingHistory } from '../edge/demo-billing.js';
import {
  demoClient,
  demoDrivers,
  seedMasterData,
  seedSiteData,
  startSimulatedCamera,
} from '../edge/demo-data.js';
import { seedScheduling } from '../edge/demo-scheduling.js';
import { startEdge } from '../edge/main.js';
import { loadConfig } from '../shared/config.js';
import type { AppDatabase } from '../shared/db/database.js';
import { Lifecycle } from '../shared/lifecycle.js';
import { demoVapidOverrides } from '../shared/modules/push/demo-vapid.js';
import { SiteRepo } from '../shared/modules/sync/sites.js';
import { loadConfigOrExit, startFailure, stopOnSignals } from '../shared/process.js';
import { DEMO_CARRIER_USER, seedCarrierUser } from './demo-carrier-user.js';
import { startCloud } from './main.js';
import { provisionSite } from './provision-site.js';

/**
 * `npm start`: the whole system on one machine, for a first look. A cloud (with the embedded MQTT
 * broker), one edge site linked to it (a simulated gate relay and a simulated ONVIF camera), demo
 * data, printed addresses and logins. The site is provisioned exactly as in production (a site
 * record with MQTT credentials and an edge config file). Data under ./data (cloud/, edge/ and the
 * edge's config file): delete the folder to start over. The admin password is a fixed demo one
 * unless YARD_ADMIN_PASSWORD is set: do not expose a demo instance beyond your own machine.
 */
const DEMO_PASSWORD = 'demo-admin-pass';
const SITE_ID = 'dal1';
const password = process.env.YARD_ADMIN_PASSWORD ?? DEMO_PASSWORD;
const logLevel = process.env.YARD_LOG_LEVEL ?? 'warn';
const root = resolve(process.env.YARD_DATA_DIR ?? './data');
const cloudConfig = loadConfigOrExit({
  role: 'cloud',
  dataDir: join(root, 'cloud'),
  adminPassword: password,
  log: { level: logLevel },
});
const step = (text: string) => console.log(`  ${text}`);
// The cloud, then the edge linked to it; stopped in reverse (shared/lifecycle.ts).
const demo = new Lifecycle();

try {
  step(`starting the cloud (broker on port ${cloudConfig.mqtt.port})`);
  const cloud = await demo.startPart('cloud', () => startCloud(cloudConfig));
  const edgeFile = join(root, `${SITE_ID}.edge.json`);
  const known = await new SiteRepo(cloud.db.kysely).get(SITE_ID);
  if (!known || !existsSync(edgeFile)) {
    await provisionSite(cloud.db.kysely, cloudConfig, {
      siteId: SITE_ID,
      name: 'Dallas Cross-Dock',
      mqttUrl: `mqtt://127.0.0.1:${cloud.broker?.port ?? cloudConfig.mqtt.port}`,
      cloudUrl: cloud.url,
      outDir: root,
      rotatePassword: Boolean(known),
    });
    step(`site ${SITE_ID} provisioned: MQTT credentials in ${edgeFile}`);
  }
  const cloudApi = await demoClient(cloud.url, cloudConfig.adminUser, password);
  const fresh = (await cloudApi('GET', '/api/yard')).items.length === 0;
  const master = fresh
    ? await seedMasterData(cloudApi, (s) => step(`cloud: ${s}`), { siteId: SITE_ID })
    : undefined;
  // Billing lives at the cloud for a linked site.
  if (master) await seedBillingConfigs(cloudApi, master, (s) => step(`cloud: ${s}`));
  // Bookings are made where availability is known: the cloud (docs/domain.md "Booking rules").
  const scheduling = master ? await seedScheduling(cloudApi, master, (s) => step(`cloud: ${s}`)) : undefined;
  // Carrier users live at the cloud only (never synced to a site).
  if (master) await seedCarrierUser(cloudApi, master.carriers, (s) => step(`cloud: ${s}`));

  const edgeDataDir = join(root, 'edge');
  const edgeConfig = loadConfig(
    { ...process.env, YARD_CONFIG_FILE: edgeFile },
    {
      dataDir: edgeDataDir,
      http: { port: cloudConfig.http.port + 1 },
      log: { level: logLevel },
      // The edge sends the drivers' Web Push: VAPID keys made once, kept with its data (unless set).
      ...(process.env.YARD_VAPID_PUBLIC_KEY ? {} : demoVapidOverrides(edgeDataDir)),
    },
  );
  step('starting the edge; it receives its users, yard and master data from the cloud');
  const edge = await demo.startPart('edge', () => startEdge(edgeConfig));
  stopOnSignals({ log: cloud.log, stop: () => demo.stop(), safeState: () => edge.safeState() });
  await waitUntil(
    async () => (await count(edge.db, 'appUser')) > 0 && (await count(edge.db, 'location')) >= 19,
    30_000,
    'the edge did not receive its master data from the cloud within 30 s',
  );
  if (master) {
    const camera = await startSimulatedCamera(cloudConfig.http.port + 2);
    const edgeApi = await demoClient(edge.url, cloudConfig.adminUser, password);
    await seedSiteData(edgeApi, master, (s) => step(`edge: ${s}`), { camera });
    // The history is the edge's (movements and tasks are edge-owned); billing reads it at the cloud.
    const history = await seedBillingHistory(edgeApi, master, (s) => step(`edge: ${s}`), {
      now: Date.now(),
      recordMoves: completedMovesWriter(edge.yard, master.yard.id),
    });
    // Appointments: the trucks' check-ins and check-outs at the edge's gate, the bookings with what
    // happened to them at the cloud; both sync to the other side (edge/demo-appointments.ts).
    let gateMovements = 0;
    if (scheduling) {
      const plans = planAppointments(scheduling, Date.now());
      gateMovements = await recordGateMovements(edgeApi, scheduling, plans);
      await pastAppointmentsWriter(cloud.yard, scheduling)(plans);
      const upcoming = await bookUpcoming(cloudApi, scheduling, Date.now());
      step(
        `cloud: ${plans.length} appointments of the past week and today (${gateMovements} gate movements at the edge), ${upcoming} booked for later today and tomorrow`,
      );
      await waitUntil(
        async () => (await count(edge.db, 'appointment')) >= plans.length + upcoming,
        30_000,
        'the appointments did not reach the edge within 30 s',
      );
      await movementLinksWriter(edge.yard)(plans);
    }
    await waitUntil(
      async () =>
        (await count(cloud.db, 'movement')) >= 4 + history.movements + gateMovements &&
        (await completedTasks(cloud.db)) >= history.moves,
      30_000,
      'the edge check-ins and history did not reach the cloud within 30 s',
    );
    step('the check-ins and the billing history at the edge have reached the cloud');
  } else {
    await startSimulatedCamera(cloudConfig.http.port + 2);
  }
  console.log(`
Yard service is running: a cloud, its MQTT broker, and one edge site (${SITE_ID}) linked to it.

  Office dashboard     ${cloud.url}/dashboard/    every site, yard figures and map, gates, tasks, appointments, master data, billing
  Cloud API            ${cloud.url}/api            docs ${cloud.url}/docs
  Edge (gate house)    ${edge.url}/api            docs ${edge.url}/docs
  Carrier portal       ${cloud.url}/carrier/      log in as ${DEMO_CARRIER_USER.username} / ${DEMO_CARRIER_USER.password} (Prairie Haulers)
  Gate house (web app) ${edge.url}/gate/          log in with the admin login below
  Driver app (phone)   ${edge.url}/driver/        log in with a driver code and PIN below (a phone needs HTTPS: docs/install.md)
  MQTT broker          mqtt://127.0.0.1:${cloud.broker?.port ?? cloudConfig.mqtt.port}  (embedded; sites log in with their own credentials)
  Sync status          GET ${cloud.url}/api/sync/status   (each site: link, lag, queues)
                       GET ${edge.url}/api/sync/status
  Open a gate          POST ${cloud.url}/api/hardware/gate/{gateId}/actuate   (from the cloud, through the edge)
  Gate camera          GET  ${cloud.url}/api/camera/{id}/snapshot             (ONVIF, through the edge)

  Admin login (both)   ${cloudConfig.adminUser} / ${password}
${demoDrivers()
  .map((d) => `  Yard driver (edge)   code ${d.code}, PIN ${d.pin} (${d.name})`)
  .join('\n')}

Master data (yards, locations, carriers, users) is changed at the cloud; the edge answers 409
cloud-owned. Gates, movements and driver sessions belong to the edge. Stop the edge's link (or the
whole demo) and the edge keeps working; its changes reach the cloud when it is back.
Data is in ${root}. Stop with Ctrl+C.`);
} catch (err) {
  console.error(`The demo could not start: ${startFailure(err)}`);
  console.error(
    `If ${root} holds data from another admin password, delete it or set YARD_ADMIN_PASSWORD. Ports: YARD_HTTP_PORT (cloud; the edge uses the next one), YARD_MQTT_PORT.`,
  );
  process.exit(1);
}

/** Rows in a table: what the demo waits for sync to bring. */
async function count(
  db: AppDatabase,
  table: 'appUser' | 'location' | 'movement' | 'appointment',
): Promise<number> {
  const row = await db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function completedTasks(db: AppDatabase): Promise<number> {
  const row = await db.kysely
    .selectFrom('yardTask')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('status', '=', 'COMPLETED')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function waitUntil(done: () => Promise<boolean>, timeoutMs: number, failure: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(failure);
    await new Promise((r) => setTimeout(r, 100));
  }
}
