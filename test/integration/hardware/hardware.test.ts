import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GateDriverStatus, GateHardware, RelayBinding } from '../../../shared/hardware.js';
import { HardwareFaultError } from '../../../shared/http/errors.js';
import { newId } from '../../../shared/ids.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, clientWithRole, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { waitFor } from '../../helpers/wait-for.js';

const RELAY: RelayBinding = { driver: 'simulated', channel: 2, pulseMs: 300, activeLow: false };

const seedYard = (t: TestApp, code: string) => seedRows(t).yard(code);

const seedGate = (t: TestApp, yardId: string, name: string, relay: RelayBinding | null = RELAY) =>
  seedRows(t).gate(yardId, name, relay);

async function setSetting(admin: Client, name: string, value: unknown) {
  const res = await admin.put('/api/settings', { settings: { [name]: value } });
  expect(res.status).toBe(200);
}

const actuationsOf = (t: TestApp, gateId: string) =>
  rows(
    t.db,
    'SELECT result, error, requested_by, reason FROM gate_actuation WHERE gate_id = ? ORDER BY at, id',
    gateId,
  );

describe('gate actuation on simulated gates', () => {
  let t: TestApp;
  let admin: Client;
  let yardId: string;
  let gateId: string;

  beforeAll(async () => {
    t = await startTestApp();
    admin = new Client(t.url, t.adminToken);
    yardId = await seedYard(t, 'HW1');
    gateId = await seedGate(t, yardId, 'North');
  });
  afterAll(() => t.close());

  it('pulses the relay once, answers the audited record and logs the change (energised, then released)', async () => {
    const res = await admin.post(`/api/hardware/gate/${gateId}/actuate`, {
      reason: 'truck stuck at barrier',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      gateId,
      yardId,
      result: 'ok',
      requestedBy: 'admin',
      requestedVia: 'local',
      reason: 'truck stuck at barrier',
      error: null,
      movementId: null,
    });
    expect(t.gates.history).toHaveLength(1);
    expect(t.gates.history[0]).toMatchObject({ gateId, relay: RELAY });
    expect(actuationsOf(t, gateId)).toEqual([
      { result: 'ok', error: null, requested_by: 'admin', reason: 'truck stuck at barrier' },
    ]);
    // Written when the relay energised, completed when it was released: both writes go to peers.
    const log = await waitFor(() => {
      const logged = rows(
        t.db,
        "SELECT op, data FROM change_log WHERE entity = 'gate_actuation' AND entity_id = ? ORDER BY seq",
        res.body.id,
      );
      return logged.length === 2 ? logged : undefined;
    });
    expect(log.map((r) => r.op)).toEqual(['upsert', 'upsert']);
    expect(JSON.parse(log[0]!.data as string).durationMs).toBeNull();
    expect(JSON.parse(log[1]!.data as string)).toMatchObject({
      result: 'ok',
      durationMs: expect.any(Number),
    });
  });

  it('a gate without relay is 409 no-relay, audited as refused', async () => {
    const manual = await seedGate(t, yardId, 'Manual', null);
    const res = await admin.post(`/api/hardware/gate/${manual}/actuate`, {});
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('no-relay');
    expect(actuationsOf(t, manual).map((a) => a.result)).toEqual(['refused']);
    expect(actuationsOf(t, manual)[0].error).toMatch(/^no-relay: /);
  });

  it('above gate.maxActuationsPerMinute: 429 rate-limited with Retry-After, audited as refused', async () => {
    const gate = await seedGate(t, yardId, 'Limited');
    await setSetting(admin, 'gate.maxActuationsPerMinute', 2);
    expect((await admin.post(`/api/hardware/gate/${gate}/actuate`, {})).status).toBe(200);
    expect((await admin.post(`/api/hardware/gate/${gate}/actuate`, {})).status).toBe(200);
    const third = await admin.post(`/api/hardware/gate/${gate}/actuate`, {});
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate-limited');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(actuationsOf(t, gate).map((a) => a.result)).toEqual(['ok', 'ok', 'refused']);
    expect(t.gates.history.filter((p) => p.gateId === gate)).toHaveLength(2);
    await setSetting(admin, 'gate.maxActuationsPerMinute', null);
  });

  it('lists the audit log newest first with paging; 404 unknown gate; 400 malformed id and body', async () => {
    for (const reason of ['one', 'two']) await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason });
    const first = await admin.get(`/api/hardware/gate/${gateId}/actuations?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.items.map((a: any) => a.reason)).toEqual(['two', 'one']);
    const second = await admin.get(
      `/api/hardware/gate/${gateId}/actuations?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.items.map((a: any) => a.reason)).toEqual(['truck stuck at barrier']);
    expect(second.body.nextCursor).toBeNull();

    const unknown = newId();
    expect((await admin.get(`/api/hardware/gate/${unknown}/actuations`)).status).toBe(404);
    expect((await admin.post(`/api/hardware/gate/${unknown}/actuate`, {})).status).toBe(404);
    expect((await admin.post('/api/hardware/gate/nope/actuate', {})).status).toBe(400);
    const bad = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: '', extra: true });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(expect.arrayContaining(['body.reason']));
  });

  it('status shows the drivers and each gate with a relay', async () => {
    const res = await admin.get('/api/hardware/status');
    expect(res.status).toBe(200);
    expect(res.body.drivers).toContainEqual(expect.objectContaining({ gateId, state: 'simulated' }));
    const north = res.body.gates.find((g: any) => g.gateId === gateId);
    expect(north).toMatchObject({
      name: 'North',
      driver: 'simulated',
      channel: 2,
      state: 'simulated',
      busy: false,
    });
    expect(north.lastActuation.result).toBe('ok');
    expect(res.body.gates.some((g: any) => g.name === 'Manual')).toBe(false);
  });

  it('roles: admin and gate actuate, other staff read only; yard scope applies (drivers too)', async () => {
    const gateUser = await clientWithRole(admin, 'gate');
    expect((await gateUser.post(`/api/hardware/gate/${gateId}/actuate`, {})).status).toBe(200);
    for (const role of ['dispatcher', 'viewer', 'billing'] as const) {
      const c = await clientWithRole(admin, role);
      expect((await c.post(`/api/hardware/gate/${gateId}/actuate`, {})).status).toBe(403);
      expect((await c.get('/api/hardware/status')).status).toBe(200);
      expect((await c.get(`/api/hardware/gate/${gateId}/actuations`)).status).toBe(200);
    }
    const other = await seedYard(t, 'HW2');
    const scoped = await clientWithRole(admin, 'gate', { yardIds: [other] });
    const before = actuationsOf(t, gateId).length;
    // Another yard's gate is 404 exactly like a gate that does not exist.
    const hidden = await scoped.post(`/api/hardware/gate/${gateId}/actuate`, {});
    const missing = await scoped.post('/api/hardware/gate/01890000-0000-7000-8000-000000000000/actuate', {});
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe(missing.body.code);
    expect((await scoped.get(`/api/hardware/gate/${gateId}/actuations`)).status).toBe(404);
    expect((await scoped.get('/api/hardware/status')).body.gates).toEqual([]);
    expect(actuationsOf(t, gateId)).toHaveLength(before);
    expect((await scoped.get('/api/hardware/status')).body.drivers).toEqual([]);
    expect((await admin.as(undefined).get('/api/hardware/status')).status).toBe(401);
  });
});

/** A relay driver the test steers: holds a pulse until released, or fails like a lost serial port. */
class SteeredGates implements GateHardware {
  mode: 'ok' | 'hold' | 'fault' = 'ok';
  pulses = 0;
  private release: (() => void) | undefined;
  private faulted = new Set<string>();
  configured: string[] = [];

  async configure(gates: Array<{ gateId: string }>): Promise<void> {
    this.configured = gates.map((g) => g.gateId);
  }

  async pulse(gateId: string, relay: RelayBinding): Promise<{ durationMs: number }> {
    if (this.mode === 'fault') {
      this.faulted.add(gateId);
      throw new HardwareFaultError('serial port /dev/ttyUSB0 is gone');
    }
    if (this.mode === 'hold') await new Promise<void>((r) => (this.release = r));
    this.pulses++;
    return { durationMs: relay.pulseMs };
  }

  async waitUntilHeld(): Promise<void> {
    while (!this.release) await new Promise((r) => setTimeout(r, 5));
  }

  letGo(): void {
    this.release?.();
    this.release = undefined;
  }

  status(): GateDriverStatus[] {
    return [...this.faulted].map((gateId) => ({
      gateId,
      driver: 'serial-lcus' as const,
      channel: 1,
      state: 'fault' as const,
      error: 'port gone',
      pulses: 0,
    }));
  }

  async stop(): Promise<void> {}
}

describe('gate actuation on a steered driver', () => {
  let t: TestApp;
  let admin: Client;
  const gates = new SteeredGates();
  let gateId: string;

  beforeAll(async () => {
    t = await startTestApp({ gates });
    admin = new Client(t.url, t.adminToken);
    const yard = await seedYard(t, 'HW3');
    gateId = await seedGate(t, yard, 'East', { ...RELAY, driver: 'serial-lcus', device: '/dev/ttyUSB0' });
  });
  afterAll(() => t.close());

  it('a second concurrent request for the same gate is 409 gate-busy, audited as refused', async () => {
    gates.mode = 'hold';
    const first = admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'first' });
    await gates.waitUntilHeld();
    const second = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'second' });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('gate-busy');
    expect((await admin.get('/api/hardware/status')).body.gates[0].busy).toBe(true);
    gates.letGo();
    expect((await first).status).toBe(200);
    gates.mode = 'ok';
    expect(gates.pulses).toBe(1);
    const audit = actuationsOf(t, gateId).map((a) => [a.reason, a.result]);
    expect(audit.sort()).toEqual([
      ['first', 'ok'],
      ['second', 'refused'],
    ]);
    expect((await admin.post(`/api/hardware/gate/${gateId}/actuate`, {})).status).toBe(200);
  });

  it('a driver fault is 503 hardware-fault, audited as fault, and shows in status and readyz', async () => {
    gates.mode = 'fault';
    const res = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'open' });
    gates.mode = 'ok';
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('hardware-fault');
    const audit = actuationsOf(t, gateId).at(-1);
    expect(audit).toMatchObject({
      result: 'fault',
      error: 'serial port /dev/ttyUSB0 is gone',
      reason: 'open',
    });
    const status = await admin.get('/api/hardware/status');
    expect(status.body.drivers).toContainEqual(expect.objectContaining({ gateId, state: 'fault' }));
    expect(status.body.gates[0]).toMatchObject({ state: 'fault', lastActuation: { result: 'fault' } });
    // Public readiness shows counts only: no gate ids, devices or channels.
    const ready = await admin.as(undefined).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.hardware).toEqual({ gates: 1, ok: 0, fault: 1, opening: 0, simulated: 0 });
    expect(ready.text).not.toContain(gateId);
    expect(ready.text).not.toContain('/dev/ttyUSB0');
  });
});
