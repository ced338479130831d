import type { YardApp } from '../shared/app.js';
import { ALLOW_LOCAL_SETTING } from '../shared/net/outbound-policy.js';
import { seedAppointments } from './demo-appointments.js';
import { type PastMove, seedBillingConfigs, seedBillingHistory } from './demo-billing.js';

/**
 * Demo data, loaded through the public HTTP API (the same contract any client uses), only into
 * an empty system. A yard with gates and locations, carriers, drivers, trailers, a few movements and
 * yard tasks. With a cloud, the master data is made at the cloud and the yard's own records at the edge.
 */
interface Seeded {
  drivers: Array<{ code: string; pin: string; name: string }>;
}

const YARD_DRIVERS = [
  { firstName: 'Maria', lastName: 'Lopez', driverCode: 'J101', pin: '1111' },
  { firstName: 'Sam', lastName: 'Okafor', driverCode: 'J102', pin: '2222' },
  { firstName: 'Lee', lastName: 'Chen', driverCode: 'J103', pin: '3333' },
];

/**
 * Standalone edge: everything through one API (the edge owns every record).
 */
export async function seedDemoData(
  baseUrl: string,
  username: string,
  password: string,
  progress: (step: string) => void,
  options: {
    /** An ONVIF camera to register at the north gate (the demo's simulated camera). */
    camera?: { xaddr: string; username: string; password: string } | undefined;
    /** Writes the billing history's completed moves (demo-billing.ts completedMovesWriter); none without. */
    recordMoves?: ((yardId: string) => (moves: PastMove[]) => Promise<void>) | undefined;
    /** The edge itself: its dock appointments' history is written through its change capture (demo-appointments.ts). */
    site?: YardApp | undefined;
  } = {},
): Promise<Seeded> {
  const api = await demoClient(baseUrl, username, password);
  const existing = await api('GET', '/api/yard');
  if (existing.items.length > 0) {
    progress('already loaded');
    return { drivers: demoDrivers() };
  }
  const master = await seedMasterData(api, progress, {});
  await seedSiteData(api, master, progress, options);
  // A standalone edge is where billing lives (at a linked site it is the cloud: cloud/demo.ts).
  await seedBillingConfigs(api, master, progress);
  if (options.recordMoves) {
    await seedBillingHistory(api, master, progress, {
      now: Date.now(),
      recordMoves: options.recordMoves(master.yard.id),
    });
  }
  // A standalone edge also books (docs/domain.md "Booking rules").
  if (options.site) await seedAppointments(api, options.site, master, progress);
  return { drivers: demoDrivers() };
}

export function demoDrivers(): Seeded['drivers'] {
  return YARD_DRIVERS.map((d) => ({ code: d.driverCode, pin: d.pin, name: `${d.firstName} ${d.lastName}` }));
}

export interface MasterData {
  // biome-ignore lint/suspicious/noExplicitAny: loose JSON answers of our own API
  yard: any;
  // biome-ignore lint/suspicious/noExplicitAny: loose JSON answers of our own API
  carriers: any[];
  // biome-ignore lint/suspicious/noExplicitAny: loose JSON answers of our own API
  carrierDriver: any;
}

/**
 * Records the cloud owns when an edge is linked (yard, locations, carriers) and shared ones
 * (drivers, trailers): with a cloud they are made there and reach the edge by sync.
 */
export async function seedMasterData(
  api: Api,
  progress: (step: string) => void,
  options: { siteId?: string },
): Promise<MasterData> {
  const yard = await api('POST', '/api/yard', {
    code: 'DAL1',
    name: 'Dallas Cross-Dock',
    timeZone: 'America/Chicago',
    capacity: 120,
    address: { line1: '1200 Freight Way', city: 'Dallas', region: 'TX', postalCode: '75212', country: 'US' },
    ...(options.siteId ? { siteId: options.siteId } : {}),
  });
  progress(`yard ${yard.code}`);
  for (const location of demoLocations()) await api('POST', `/api/yard/${yard.id}/location`, location);
  progress('locations');

  const carriers = [];
  for (const c of [
    { name: 'Lone Star Logistics', scac: 'LSLG', usdot: '1234567' },
    { name: 'Prairie Haulers', scac: 'PRHL', usdot: '2345678' },
    { name: 'Gulf Coast Carriers', scac: 'GCCA', usdot: '3456789' },
  ]) {
    carriers.push(await api('POST', '/api/carrier', c));
  }
  progress('carriers');

  for (const d of YARD_DRIVERS)
    await api('POST', '/api/driver', { kind: 'yard', ...d, phone: '+12145550100' });
  const carrierDriver = await api('POST', '/api/driver', {
    kind: 'carrier',
    carrierId: carriers[0].id,
    firstName: 'Dale',
    lastName: 'Brooks',
    phone: '+12145550123',
    licenseNumber: 'TX1234567',
    licenseRegion: 'TX',
    licenseExpiresOn: '2029-05-31',
  });
  progress('drivers');

  const types = ['dry_van', 'reefer', 'dry_van', 'flatbed', 'container', 'dry_van'];
  for (let i = 0; i < 6; i++) {
    await api('POST', '/api/trailer', {
      carrierId: carriers[i % carriers.length].id,
      number: `${carriers[i % carriers.length].scac}${5300 + i}`,
      type: types[i],
      lengthFt: 53,
    });
  }
  progress('trailers');
  return { yard, carriers, carrierDriver };
}

/**
 * The demo yard's locations and their places on its plan (metres, x east, y south): a cross-dock
 * building with six dock doors along its south wall, a drive aisle, a row of ten spots across it
 * (the east four in the reefer row, where trailers can plug in) and a staging lane. S11 and S12 are
 * not placed yet: the map lists them beside the plan, for someone to place with its editor.
 */
function demoLocations(): Array<Record<string, unknown>> {
  const trailer = { width: 4, height: 17, rotation: 0 };
  const spots = Array.from({ length: 12 }, (_, i) => ({
    kind: 'spot',
    name: `S${String(i + 1).padStart(2, '0')}`,
    plan: i < 10 ? { x: 12 + i * 5, y: 62, ...trailer } : null,
  }));
  const doors = Array.from({ length: 6 }, (_, i) => ({
    kind: 'door',
    name: `Door ${i + 1}`,
    plan: { x: 16 + i * 16, y: 29, ...trailer },
  }));
  return [
    ...spots,
    ...doors,
    {
      kind: 'staging',
      name: 'Staging lane',
      plan: { x: 74, y: 66, width: 32, height: 5, rotation: 0 },
    },
    { kind: 'zone', name: 'Dock building', plan: { x: 10, y: 5, width: 96, height: 24, rotation: 0 } },
    {
      kind: 'zone',
      name: 'Reefer row',
      plan: { x: 41, y: 55, width: 21, height: 27, rotation: 0 },
    },
  ];
}

/**
 * What happens at the yard itself, made at the edge: gates and the gate camera (edge-owned),
 * trailers checked in through the gate, and jobs for the yard drivers.
 */
export async function seedSiteData(
  api: Api,
  master: MasterData,
  progress: (step: string) => void,
  options: { camera?: { xaddr: string; username: string; password: string } | undefined },
): Promise<void> {
  const { yard, carriers, carrierDriver } = master;
  const relay = { driver: 'simulated', channel: 1, pulseMs: 500, activeLow: false };
  const inGate = await api('POST', `/api/yard/${yard.id}/gate`, {
    name: 'North gate (in)',
    direction: 'in',
    relay,
  });
  await api('POST', `/api/yard/${yard.id}/gate`, {
    name: 'South gate (out)',
    direction: 'out',
    relay: { ...relay, channel: 2 },
  });
  progress('gates');
  if (options.camera) {
    // The simulated camera listens on loopback, which a site must allow for cameras explicitly.
    await api('PUT', '/api/settings', { settings: { [ALLOW_LOCAL_SETTING]: true } });
    await api('POST', '/api/camera', {
      yardId: yard.id,
      name: 'North gate camera',
      gateId: inGate.id,
      onvif: options.camera,
    });
    progress('a simulated ONVIF camera at the north gate');
  }
  const locations = (await api('GET', `/api/yard/${yard.id}/location?limit=100`)).items;
  const spots = locations.filter((l: { kind: string }) => l.kind === 'spot');
  const doors = locations.filter((l: { kind: string }) => l.kind === 'door');

  for (let i = 0; i < 4; i++) {
    const carrier = carriers[i % carriers.length];
    await api('POST', '/api/movement', {
      yardId: yard.id,
      gateId: inGate.id,
      direction: 'in',
      trailer: { number: `${carrier.scac}${5300 + i}` },
      truck: { plate: `TX${8100 + i}`, plateRegion: 'TX', carrierId: carrier.id },
      carrierId: carrier.id,
      ...(i === 0 ? { driverId: carrierDriver.id } : {}),
      locationId: spots[i].id,
      loadStatus: i % 2 ? 'empty' : 'loaded',
      // The gate camera's pictures, as a clerk's check-in takes them (none without a camera).
      snapshot: true,
    });
  }
  progress('trailers checked in');

  // A few jobs for the yard drivers: they are handed out as soon as a driver starts a session.
  const inYard = (await api('GET', `/api/trailer?yardId=${yard.id}`)).items;
  const jobs = [
    {
      type: 'pull_to_door',
      trailerId: inYard[0].id,
      toLocationId: doors[0].id,
      priority: 3,
      notes: 'Live unload, dock 1',
    },
    { type: 'move', trailerId: inYard[1].id, toLocationId: spots[8].id, priority: 1 },
    { type: 'pull_to_door', trailerId: inYard[2].id, toLocationId: doors[1].id, priority: 2 },
    { type: 'inspect', trailerId: inYard[3].id, priority: 0, notes: 'Check reefer temperature' },
  ];
  await api('POST', '/api/yard-task', { tasks: jobs.map((j) => ({ yardId: yard.id, ...j })) });
  progress('yard tasks queued');
}

// The demo reads a few fields of each answer; they are checked by the API's own schemas.
// biome-ignore lint/suspicious/noExplicitAny: loose JSON answers of our own API
export type Api = (method: string, path: string, body?: unknown) => Promise<any>;

export async function demoClient(baseUrl: string, username: string, password: string): Promise<Api> {
  const login = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (login.status !== 200) throw new Error(`admin login failed (${login.status})`);
  const { token } = (await login.json()) as { token: string };
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/**
 * The demo's simulated camera: the in-repo fake ONVIF camera (SOAP and Digest on 127.0.0.1), so the
 * demo exercises the real ONVIF client. Loaded by path at run time: it is a test fixture, not part
 * of the built service. A fixed port lets a restarted demo find it again.
 */
export async function startSimulatedCamera(
  port: number,
): Promise<{ xaddr: string; username: string; password: string } | undefined> {
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
