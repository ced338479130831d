import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayHub } from '../../../edge/hardware/relay-hub.js';
import { FakeBoardBinding, FakeRelayBoard } from '../../fixtures/fake-relay-board.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { cloudMasterData, type MasterData } from '../sync/link-fixture.js';

/**
 * An actuation's record is written when the relay energises and completed at release
 * (docs/domain.md "Gate actuation"): the completed record, not the first write, is what the
 * cloud's audit log shows. The edge drives a real RelayHub on an emulated LCUS board.
 */
const PORT = '/dev/serial/by-id/usb-fake-lcus-actuation-sync';

describe.each(TEST_DIALECTS)('a completed actuation reaches the cloud (cloud on %s)', (dialect) => {
  const board = new FakeRelayBoard('serial-lcus');
  const binding = new FakeBoardBinding();
  binding.attach(PORT, board);
  const hub = new RelayHub({ serialBinding: binding, reopenDelayMs: { min: 20, max: 100 } });
  let h: SyncHarness;
  let m: MasterData;
  let gateId: string;
  const edge = () => h.edges[0]!;

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, gates: () => hub });
    m = await cloudMasterData(h.cloud.client, 'site-a');
    await h.converged(edge());
    const gate = await edge().client.post(`/api/yard/${m.yardId}/gate`, {
      name: 'South',
      direction: 'both',
      relay: { driver: 'serial-lcus', channel: 4, pulseMs: 300, device: PORT },
    });
    expect(gate.status, gate.text).toBe(201);
    gateId = gate.body.id;
  });
  afterAll(async () => {
    await h?.close();
    await hub.stop();
  });

  /** The actuation as the cloud's audit log shows it, once it is there with `durationMs` or a fault. */
  const atCloud = (id: string) =>
    waitFor(
      async () => {
        const res = await h.cloud.client.get(`/api/hardware/gate/${gateId}/actuations`);
        const found = res.body.items?.find((a: { id: string }) => a.id === id);
        return found && (found.durationMs !== null || found.result === 'fault') ? found : undefined;
      },
      { timeoutMs: 15_000, what: 'the completed actuation at the cloud' },
    );

  it('the cloud gets the held time of a pulse answered while it ran', async () => {
    const res = await edge().client.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'sync me' });
    expect(res.status).toBe(200);
    expect(res.body.durationMs).toBeNull();
    const synced = await atCloud(res.body.id);
    expect(synced).toMatchObject({ result: 'ok', reason: 'sync me', error: null });
    expect(synced.durationMs).toBeGreaterThanOrEqual(295);
  });

  it('the cloud gets the fault of a relay that could not be de-energised', async () => {
    const res = await edge().client.post(`/api/hardware/gate/${gateId}/actuate`, { reason: 'then pulled' });
    expect(res.status).toBe(200);
    binding.unplug(PORT);
    const synced = await atCloud(res.body.id);
    expect(synced).toMatchObject({ result: 'fault', durationMs: null });
    expect(synced.error).toContain(PORT);
    binding.replug(PORT);
  });
});
