import { seedDemoData } from './demo-data.js';
import { loadConfigOrExit, startEdge, stopOnSignals } from './main.js';

/**
 * `npm start`: the edge with demo data, for a first look. Data under ./data (delete the folder to
 * start over). The admin password is a fixed demo one unless YARD_ADMIN_PASSWORD is set: do not
 * expose a demo instance beyond your own machine.
 */
const DEMO_PASSWORD = 'demo-admin-pass';
const password = process.env.YARD_ADMIN_PASSWORD ?? DEMO_PASSWORD;
const config = loadConfigOrExit({
  role: 'edge',
  adminPassword: password,
  log: { level: process.env.YARD_LOG_LEVEL ?? 'warn' },
});
const edge = await startEdge(config);
stopOnSignals(edge);
const camera = await startSimulatedCamera(config.http.port + 1);

try {
  const seeded = await seedDemoData(
    edge.url,
    config.adminUser,
    password,
    (step) => console.log(`  demo data: ${step}`),
    { camera },
  );
  console.log(`
Yard service (edge, standalone) is running.

  API            ${edge.url}/api
  API docs       ${edge.url}/docs
  OpenAPI        ${edge.url}/v3/api-docs
  Gate house UI  ${edge.url}/api/ui/assets/binary/index.html
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

/**
 * The demo's simulated camera: the in-repo fake ONVIF camera (SOAP and Digest on 127.0.0.1), so the
 * demo exercises the real ONVIF client. Loaded by path at run time: it is a test fixture, not part
 * of the built edge. A fixed port lets a restarted demo find it again.
 */
async function startSimulatedCamera(port: number) {
  const credentials = { username: 'demo', password: 'demo-camera-pass' };
  const fixture = new URL('../test/fixtures/fake-onvif-camera.ts', import.meta.url).href;
  try {
    const { startFakeOnvifCamera } = (await import(fixture)) as {
      startFakeOnvifCamera(options: object): Promise<{ xaddr: string }>;
    };
    const fake = await startFakeOnvifCamera({ ...credentials, name: 'Demo Gate Camera', port });
    return { xaddr: fake.xaddr, ...credentials };
  } catch (err) {
    console.warn(`  (no simulated camera: port ${port} is not free: ${(err as Error).message})`);
    return undefined;
  }
}
