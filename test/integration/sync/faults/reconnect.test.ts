import { afterEach, describe, expect, it } from 'vitest';
import { cloudWork, edgeWork, expectSameState, prepareSite, scalar } from '../../../helpers/sync-traffic.js';
import { SyncWorld } from '../../../helpers/sync-world.js';
import { waitFor } from '../../../helpers/wait-for.js';

/**
 * Getting back on the link: an edge the broker refused once must keep trying, and an edge whose
 * link died with an ack in flight must still stop when told to (SIGTERM).
 */
let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

// SQLite only: the edge's reconnecting and stopping (edges are SQLite); the cloud plays no part in it.
describe('sync: reconnecting and stopping', () => {
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
