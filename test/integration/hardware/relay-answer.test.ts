import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayHub } from '../../../edge/hardware/relay-hub.js';
import { FakeBoardBinding, FakeRelayBoard } from '../../fixtures/fake-relay-board.js';
import { seed } from '../../helpers/builders.js';
import { Client, rows } from '../../helpers/http.js';
import { EventStream } from '../../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * An actuation answers once the relay is energised and the pulse ends in the background
 * (docs/domain.md "Gate actuation"), shown down to the bytes on an emulated LCUS board behind the
 * serialport mock binding, with the real RelayHub and serial driver.
 */
const PORT = '/dev/serial/by-id/usb-fake-lcus-answer';
const PULSE_MS = 400;
const board = new FakeRelayBoard('serial-lcus');
const binding = new FakeBoardBinding();
binding.attach(PORT, board);
const hub = new RelayHub({ serialBinding: binding, reopenDelayMs: { min: 20, max: 100 } });
let t: TestApp;
let admin: Client;
let events: EventStream;
let yardId: string;
let gateId: string;

const ON = [0xa0, 3, 1, 0xa4];
const OFF = [0xa0, 3, 0, 0xa3];
const since = (before: number) => [...binding.written(PORT).subarray(before)];
const actuation = (id: string) =>
  rows(t.db, 'SELECT result, duration_ms, error, movement_id FROM gate_actuation WHERE id = ?', id)[0];
const released = (id: string) =>
  events.events.find((e) => e.event === 'gate.released' && e.data.data.id === id);

beforeAll(async () => {
  t = await startTestApp({ gates: hub });
  admin = new Client(t.url, t.adminToken);
  yardId = (await seed(admin).yard({ code: 'ANS1', name: 'Answer yard', timeZone: 'UTC' })).id;
  const gate = await admin.post(`/api/yard/${yardId}/gate`, {
    name: 'West',
    direction: 'both',
    relay: { driver: 'serial-lcus', channel: 3, pulseMs: PULSE_MS, device: PORT },
  });
  expect(gate.status).toBe(201);
  gateId = gate.body.id;
  events = await EventStream.open(t.url, t.adminToken);
});

afterAll(async () => {
  events?.close();
  await t?.close();
  await hub.stop();
});

/** Waits until the gate's pulse has ended (the off frame is written) and its record is complete. */
async function pulseEnded(id: string) {
  await waitFor(() => released(id), { what: 'gate.released' });
}

describe('the gate answers when it opens', () => {
  it('POST actuate answers after the on bytes and before the off bytes; the record is completed at release', async () => {
    const before = binding.written(PORT).length;
    const res = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'truck at the gate' });
    // Answered while the relay is held: only the energising frame is on the wire.
    expect(since(before)).toEqual(ON);
    expect(board.isEnergised(3)).toBe(true);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ gateId, result: 'ok', durationMs: null, error: null });
    expect(actuation(res.body.id)).toMatchObject({ result: 'ok', duration_ms: null });

    await pulseEnded(res.body.id);
    expect(since(before)).toEqual([...ON, ...OFF]);
    expect(board.isEnergised(3)).toBe(false);
    const done = actuation(res.body.id);
    expect(done).toMatchObject({ result: 'ok', error: null });
    // Held from energised to released: the relay's pulse, not the time to answer.
    expect(done.duration_ms).toBeGreaterThanOrEqual(PULSE_MS - 5);
    expect(done.duration_ms).toBeLessThan(PULSE_MS + 300);
    expect(released(res.body.id)?.data).toMatchObject({
      type: 'gate.released',
      yardId,
      data: { id: res.body.id, result: 'ok', durationMs: done.duration_ms },
    });
    expect((await admin.get('/api/hardware/status')).body.gates[0]).toMatchObject({ busy: false });
    // The completed record is the edge's row to sync: its change_log carries the second write.
    const logged = rows(
      t.db,
      "SELECT data FROM change_log WHERE entity = 'gate_actuation' AND entity_id = ? ORDER BY seq",
      res.body.id,
    ).map((r) => JSON.parse(r.data as string).durationMs);
    expect(logged.at(-1)).toBe(done.duration_ms);
  });

  it('a check-in with actuate answers while the relay is energised; the actuation links to the movement', async () => {
    const before = binding.written(PORT).length;
    const res = await admin.post('/api/movement', {
      yardId,
      gateId,
      direction: 'in',
      trailer: { number: 'ANS-1' },
      actuate: true,
    });
    expect(since(before)).toEqual(ON);
    expect(res.status).toBe(201);
    expect(res.body.actuation).toMatchObject({ result: 'ok', code: null, error: null });
    expect(actuation(res.body.actuation.id)).toMatchObject({ movement_id: res.body.id, duration_ms: null });
    await pulseEnded(res.body.actuation.id);
    expect(since(before)).toEqual([...ON, ...OFF]);
    expect(actuation(res.body.actuation.id)).toMatchObject({ result: 'ok', movement_id: res.body.id });
  });

  it('one actuation at a time for the whole pulse: a second request before the release is 409 gate-busy', async () => {
    const before = binding.written(PORT).length;
    const first = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'first' });
    expect(first.status).toBe(200);
    const second = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'second' });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('gate-busy');
    const checkIn = await admin.post('/api/movement', {
      yardId,
      gateId,
      direction: 'in',
      trailer: { number: 'ANS-2' },
      actuate: true,
    });
    expect(checkIn.status).toBe(201);
    expect(checkIn.body.actuation).toMatchObject({ result: 'refused', code: 'gate-busy' });
    // Neither refusal touched the relay: still only the first pulse's energising frame.
    expect(since(before)).toEqual(ON);
    const audit = rows(
      t.db,
      'SELECT reason, result FROM gate_actuation WHERE gate_id = ? AND at >= ? ORDER BY at, id',
      gateId,
      Date.parse(first.body.at),
    );
    expect(audit).toEqual([
      { reason: 'first', result: 'ok' },
      { reason: 'second', result: 'refused' },
      { reason: 'movement in', result: 'refused' },
    ]);
    await pulseEnded(first.body.id);
    expect(since(before)).toEqual([...ON, ...OFF]);
    const third = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'third' });
    expect(third.status).toBe(200);
    await pulseEnded(third.body.id);
  });

  it('a fault at release is recorded, announced and shown; the next actuation is refused until the board is back', async () => {
    const res = await admin.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'before the fault' });
    expect(res.status).toBe(200);
    expect(res.body.result).toBe('ok');
    // The adapter is pulled while the relay is held: the off frame cannot be written.
    binding.unplug(PORT);
    await pulseEnded(res.body.id);
    const faulted = actuation(res.body.id);
    expect(faulted).toMatchObject({ result: 'fault', duration_ms: null });
    expect(faulted.error).toContain(PORT);
    expect(released(res.body.id)?.data.data).toMatchObject({ result: 'fault', error: faulted.error });
    const status = (await admin.get('/api/hardware/status')).body;
    expect(status.drivers[0]).toMatchObject({ gateId, state: 'fault' });
    expect(status.gates[0]).toMatchObject({
      state: 'fault',
      busy: false,
      lastActuation: { result: 'fault', error: faulted.error },
    });
    const refused = await admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('hardware-fault');

    // Replugged: the driver reopens the port and drives the relay off before it reports ok.
    binding.replug(PORT);
    await waitFor(async () => (await admin.get('/api/hardware/status')).body.drivers[0].state === 'ok', {
      what: 'the reopen',
    });
    expect(board.isEnergised(3)).toBe(false);
    const again = await admin.post(`/api/hardware/gate/${gateId}/actuate`, {});
    expect(again.status).toBe(200);
    await pulseEnded(again.body.id);
    expect(actuation(again.body.id)).toMatchObject({ result: 'ok', error: null });
  });
});
