import { afterEach, describe, expect, it } from 'vitest';
import { cloudWork, edgeWork, expectSameState, pings, prepareSite, scalar } from '../helpers/sync-traffic.js';
import { SyncWorld } from '../helpers/sync-world.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The broker and the link failing under load (SYNC.md): a broker killed in the middle of a batch,
 * and a link that is down for a long time while both sides keep working. In process, with real
 * time kept short: "long" is thousands of writes and several ack timeouts on both sides, not minutes.
 */
let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const applied = (world: SyncWorld, siteId: string) =>
  scalar(
    world.cloud.sqlite,
    'SELECT coalesce(max(applied_remote_seq), 0) FROM sync_cursor WHERE peer = ?',
    siteId,
  );

describe('sync: broker and link failures under load', () => {
  it('the broker dies while the cloud is in the middle of a batch of a draining queue; a new one on the same port: nothing lost, nothing twice', async () => {
    // Small batches: many of them in flight both ways when the broker goes.
    world = await SyncWorld.start({ config: { 'sync.batchRows': 200, 'sync.ackTimeoutMs': 800 } });
    const edge = world.edge();
    const s = await prepareSite(world, edge);
    await world.cut(edge);
    await pings(s, 12, 500);
    await edgeWork(edge.client, s, 'B1', { checkIns: 6 });
    await cloudWork(world.cloud.client, s, 'B1');
    const top = scalar(edge.sqlite, "SELECT max(seq) FROM change_log WHERE peer = 'cloud'");

    let appliedAtKill = -1;
    let stopped: Promise<void> | undefined;
    const before = scalar(world.cloud.sqlite, 'SELECT count(*) FROM session_location');
    world.cloud.onInsert('session_location', 2_900, () => {
      stopped = world!.killBroker();
    });
    await world.restore(edge);
    await waitFor(() => stopped !== undefined, { what: 'the broker killed mid-batch' });
    await stopped;
    appliedAtKill = applied(world, 'site-a');
    expect(appliedAtKill).toBeLessThan(top);
    expect(scalar(world.cloud.sqlite, 'SELECT count(*) FROM session_location') - before).toBeGreaterThan(0);
    // Both sides keep working while there is no broker at all.
    await cloudWork(world.cloud.client, s, 'B2');
    await edgeWork(edge.client, s, 'B2');
    await world.startBroker();
    await edgeWork(edge.client, s, 'B3');
    await expectSameState(world, edge, { timeoutMs: 30_000 });
    expect(scalar(world.cloud.sqlite, 'SELECT count(*) FROM session_location')).toBe(
      scalar(edge.sqlite, 'SELECT count(*) FROM session_location'),
    );
  }, 60_000);

  it('a link down for long, first silently (everything lost, several ack timeouts both ways) then for good: both sides converge once it is back', async () => {
    world = await SyncWorld.start({ config: { 'sync.batchRows': 250, 'sync.ackTimeoutMs': 300 } });
    const edge = world.edge();
    const s = await prepareSite(world, edge);

    // A half-open link: the edge and the cloud both believe it is up; nothing gets through.
    edge.link.blackhole = true;
    const writes: Array<Promise<unknown>> = [];
    for (let round = 0; round < 4; round++) {
      writes.push(edgeWork(edge.client, s, `H${round}`, { locationBatches: 2, points: 500 }));
      writes.push(cloudWork(world.cloud.client, s, `H${round}`));
      await Promise.all(writes.splice(0));
    }
    // Each side resent its first unacknowledged batch at least three times (three ack timeouts).
    await waitFor(
      () => edge.link.mostResent('/up/changes') >= 3 && world!.cloud.link.mostResent('/down/changes') >= 3,
      { what: 'three ack timeouts on both sides' },
    );
    const site = (await world.cloud.client.get('/api/sync/status')).body.sites[0];
    expect(site).toMatchObject({ siteId: 'site-a', link: 'online' });
    expect(site.queued).toBeGreaterThan(0);

    // Then the link dies for good: the will says offline; both sides keep writing.
    edge.link.blackhole = false;
    await world.cut(edge);
    await waitFor(
      async () => (await world!.cloud.client.get('/api/sync/status')).body.sites[0].link === 'offline',
      { what: 'site offline at the cloud' },
    );
    for (let round = 4; round < 7; round++) {
      await Promise.all([
        edgeWork(edge.client, s, `H${round}`, { locationBatches: 2, points: 500 }),
        cloudWork(world.cloud.client, s, `H${round}`),
      ]);
    }
    const queued = (await edge.client.get('/api/sync/status')).body.queued;
    expect(queued).toBeGreaterThan(7_000);

    await world.restore(edge);
    await expectSameState(world, edge, { timeoutMs: 30_000 });
    expect(scalar(world.cloud.sqlite, "SELECT count(*) FROM trailer WHERE number LIKE 'H%'")).toBe(
      scalar(edge.sqlite, "SELECT count(*) FROM trailer WHERE number LIKE 'H%'"),
    );
  }, 60_000);

  it('an edge the broker turned away once ("server unavailable") gets in when the broker takes it again', async () => {
    world = await SyncWorld.start();
    const edge = world.edge();
    const s = await prepareSite(world, edge);
    // E.g. a site provisioned while the broker's password file was not reloaded yet, or a broker
    // whose authentication backend was briefly unavailable.
    world.refuse('edge-site-a');
    world.dropConnection('edge-site-a');
    await waitFor(() => (world!.refusals.get('edge-site-a') ?? 0) >= 1, { what: 'a refused CONNECT' });
    await edgeWork(edge.client, s, 'R1');
    const carrier = await world.cloud.client.post('/api/carrier', { name: 'While Refused Freight' });
    expect(carrier.status, carrier.text).toBe(201);
    world.admit('edge-site-a');
    await expectSameState(world, edge, { timeoutMs: 15_000 });
    expect(scalar(edge.sqlite, 'SELECT count(*) FROM carrier WHERE id = ?', carrier.body.id)).toBe(1);
  }, 30_000);

  it('an edge told to stop while its link is down and an ack of its still waits for the broker stops (SIGTERM: relays to safe state, database closed)', async () => {
    world = await SyncWorld.start();
    const edge = world.edge();
    const s = await prepareSite(world, edge);
    // The broker takes the edge's acks but does not answer them (PUBACK) before the link dies.
    const held: Array<() => void> = [];
    world.aedes.authorizePublish = (_client, packet, done) => {
      if (packet.topic.endsWith('/up/ack')) held.push(() => done(null));
      else done(null);
    };
    await cloudWork(world.cloud.client, s, 'S1');
    await waitFor(() => held.length > 0, { what: "an ack of the edge's waiting at the broker" });
    await world.cut(edge);
    let stopped = false;
    void edge.stop().then(() => {
      stopped = true;
    });
    await waitFor(() => stopped, { timeoutMs: 10_000, what: 'the edge stopped' });
  }, 30_000);
});
