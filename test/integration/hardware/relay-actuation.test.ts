import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayHub } from '../../../edge/hardware/relay-hub.js';
import { FakeBoardBinding, FakeRelayBoard } from '../../fixtures/fake-relay-board.js';
import { seed } from '../../helpers/builders.js';
import { Client, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Gate actuation from the API down to the bytes on a serial relay board: the real RelayHub and
 * serial driver, with an LCUS board emulated behind the serialport mock binding.
 */
const PORT = '/dev/serial/by-id/usb-fake-lcus-actuation';
const board = new FakeRelayBoard('serial-lcus');
const binding = new FakeBoardBinding();
binding.attach(PORT, board);
const hub = new RelayHub({ serialBinding: binding, reopenDelayMs: { min: 20, max: 100 } });
let t: TestApp;
let admin: Client;
let yardId: string;
let gateId: string;

const frame = (channel: number, on: boolean) => [
  0xa0,
  channel,
  on ? 1 : 0,
  (0xa0 + channel + (on ? 1 : 0)) & 0xff,
];

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  t = await startTestApp({ gates: hub });
  admin = new Client(t.url, t.adminToken);
  yardId = (await seed(admin).yard({ code: 'RLY1', name: 'Relay yard', timeZone: 'UTC' })).id;
  const gate = await admin.post(`/api/yard/${yardId}/gate`, {
    name: 'East',
    direction: 'both',
    relay: { driver: 'serial-lcus', channel: 2, pulseMs: 100, device: PORT },
  });
  expect(gate.status).toBe(201);
  gateId = gate.body.id;
});

afterAll(async () => {
  await t?.close();
  await hub.stop();
});

describe('gate actuation on a serial relay board', () => {
  it('creating the gate opens the port and drives its relay off', () => {
    expect([...binding.written(PORT)]).toEqual(frame(2, false));
    expect(board.isEnergised(2)).toBe(false);
  });

  it('POST actuate sends exactly one on-then-off frame pair and audits it', async () => {
    const before = binding.written(PORT).length;
    const res = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'truck at the gate' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ gateId, result: 'ok', reason: 'truck at the gate' });
    // Answered once energised (relay-answer.test.ts); the off frame follows pulseMs later.
    await waitFor(async () => binding.written(PORT).length - before === 8, 'the off frame');
    expect([...binding.written(PORT).subarray(before)]).toEqual([...frame(2, true), ...frame(2, false)]);
    expect(board.commands.slice(-2)).toEqual([
      { protocol: 'serial-lcus', channel: 2, energised: true },
      { protocol: 'serial-lcus', channel: 2, energised: false },
    ]);
    expect(board.isEnergised(2)).toBe(false);
    expect(rows(t.db, 'SELECT result FROM gate_actuation WHERE id = ?', res.body.id)[0].result).toBe('ok');
    const status = await admin.get('/api/hardware/status');
    expect(status.body.drivers).toEqual([
      expect.objectContaining({
        gateId,
        driver: 'serial-lcus',
        device: PORT,
        channel: 2,
        state: 'ok',
        pulses: 1,
      }),
    ]);
    expect(Array.isArray(status.body.serialPorts)).toBe(true);
  });

  it('a pulled board is 503 hardware-fault (audited, in status and /readyz), and works again once replugged', async () => {
    binding.unplug(PORT);
    await waitFor(
      async () => (await admin.get('/api/hardware/status')).body.drivers[0].state === 'fault',
      'the fault',
    );
    const refused = await admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('hardware-fault');
    expect(refused.body.detail).toContain(PORT);
    expect(
      rows(t.db, "SELECT count(*) AS n FROM gate_actuation WHERE gate_id = ? AND result = 'fault'", gateId)[0]
        .n,
    ).toBe(1);
    const ready = await admin.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.hardware).toMatchObject({ gates: 1, fault: 1 });

    binding.replug(PORT);
    await waitFor(
      async () => (await admin.get('/api/hardware/status')).body.drivers[0].state === 'ok',
      'the reopen',
    );
    const before = binding.written(PORT).length;
    expect((await admin.post(`/api/hardware/gate/${gateId}/actuate`, {})).status).toBe(200);
    await waitFor(async () => binding.written(PORT).length - before === 8, 'the off frame');
    expect([...binding.written(PORT).subarray(before)]).toEqual([...frame(2, true), ...frame(2, false)]);
  });

  it('removing the relay binding drives the relay off and forgets the gate', async () => {
    expect((await admin.patch(`/api/yard/${yardId}/gate/${gateId}`, { relay: null })).status).toBe(200);
    expect((await admin.get('/api/hardware/status')).body.drivers).toEqual([]);
    const res = await admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('no-relay');
    expect(board.isEnergised(2)).toBe(false);
  });
});
