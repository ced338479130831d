import { demoVapidOverrides } from '../shared/modules/push/demo-vapid.js';
import { completedMovesWriter } from './demo-billing.js';
import { seedDemoData, startSimulatedCamera } from './demo-data.js';
import { loadConfigOrExit, startEdge, stopOnSignals } from './main.js';

/**
 * `npm start`: the edge with demo data, for a first look. Data under ./data (delete the folder to
 * start over). The admin password is a fixed demo one unless YARD_ADMIN_PASSWORD is set: do not
 * expose a demo instance beyond your own machine.
 */
const DEMO_PASSWORD = 'demo-admin-pass';
const password = process.env.YARD_ADMIN_PASSWORD ?? DEMO_PASSWORD;
const demoConfig = {
  role: 'edge',
  adminPassword: password,
  log: { level: process.env.YARD_LOG_LEVEL ?? 'warn' },
};
let config = loadConfigOrExit(demoConfig);
// Web Push out of the box: VAPID keys made once and kept with the data, unless YARD_VAPID_* are set.
if (!config.push.vapidPublicKey) {
  config = loadConfigOrExit({ ...demoConfig, ...demoVapidOverrides(config.dataDir) });
}
const edge = await startEdge(config);
stopOnSignals(edge);
const camera = await startSimulatedCamera(config.http.port + 1);

try {
  const seeded = await seedDemoData(
    edge.url,
    config.adminUser,
    password,
    (step) => console.log(`  demo data: ${step}`),
    { camera, recordMoves: (yardId) => completedMovesWriter(edge.yard, yardId), site: edge.yard },
  );
  console.log(`
Yard service (edge, standalone) is running.

  API            ${edge.url}/api
  API docs       ${edge.url}/docs
  OpenAPI        ${edge.url}/v3/api-docs
  Gate house     ${edge.url}/gate/   (web app: log in with the admin login below)
  Dashboard      ${edge.url}/dashboard/   (this site's figures, map, tasks, master data, billing)
  Driver app     ${edge.url}/driver/ (phone web app: log in with a driver code and PIN below)
  Health         ${edge.url}/readyz
  Open the gate  POST ${edge.url}/api/hardware/gate/{gateId}/actuate   (simulated relay)
  Gate camera    GET  ${edge.url}/api/camera/{id}/snapshot             (simulated ONVIF camera)

  Admin login    ${config.adminUser} / ${password}
${seeded.drivers.map((d) => `  Yard driver    code ${d.code}, PIN ${d.pin} (${d.name})`).join('\n')}

  Try:  curl -s -X POST ${edge.url}/api/auth/login -H 'content-type: application/json' \\
          -d '{"username":"${config.adminUser}","password":"${password}"}'

Data is in ${config.dataDir}. Stop with Ctrl+C.`);
} catch (err) {
  console.error(`Demo data could not be loaded: ${(err as Error).message}`);
  console.error(
    `If ${config.dataDir} holds data from another admin password, delete it or set YARD_ADMIN_PASSWORD.`,
  );
  await edge.stop();
  process.exit(1);
}
