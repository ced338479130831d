import { deflateSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BusyError } from '../../../shared/sync/applier.js';
import { BatchReceiver } from '../../../shared/sync/link-receiver.js';
import type { Ack, Batch } from '../../../shared/sync/protocol.js';
import { encodeBatch } from '../../../shared/sync/wire-encoding.js';
import { batchesFrom, checkIn, linkedEdge, one, SITE, SyncPair, streamOf } from './apply-fixture.js';

/**
 * The receiving half of the link (link-receiver.ts) when the database fails a whole group of
 * batches (a full disk, an I/O error: not one row's fault, so nothing of the group is committed).
 * The peer resends from our last ack, so an ack for a group that was not applied would lose it.
 */
let pair: SyncPair;

beforeEach(async () => {
  pair = await SyncPair.start();
});
afterEach(async () => {
  await pair.close();
});

/** The cloud's real applier, failing its next `failures` calls as a full disk (or `error`) would. */
function failingApplier(
  failures: number,
  error: () => Error = () => new Database.SqliteError('database or disk is full', 'SQLITE_FULL'),
) {
  const calls: number[] = [];
  const applier = pair.cloudApplier;
  const maybeFail = (group: readonly Batch[]) => {
    calls.push(group.length);
    if (failures > 0) {
      failures -= 1;
      throw error();
    }
  };
  return {
    calls,
    apply(peer: string, batch: Batch) {
      maybeFail([batch]);
      return applier.apply(peer, batch);
    },
    applyMany(peer: string, batches: readonly Batch[]) {
      maybeFail(batches);
      return applier.applyMany(peer, batches);
    },
  };
}

function cloudReceiver(applier: ReturnType<typeof failingApplier>) {
  const acks: Ack[] = [];
  const receiver = new BatchReceiver({
    deps: pair.cloud.core,
    peer: SITE,
    site: SITE,
    applier,
    ack: async (ack) => {
      acks.push(ack);
    },
  });
  const send = (batches: Batch[]) => {
    for (const b of batches) receiver.receive(Buffer.from(JSON.stringify(b)));
  };
  // Resolves once everything received so far has been applied (or refused).
  const settled = () => receiver.runInOrder(() => undefined);
  return { acks, receiver, send, settled };
}

/** Three check-ins at the edge: the edge's log for the cloud as one batch and as three (one each). */
async function threeCheckIns(): Promise<{ whole: Batch; parts: Batch[] }> {
  const { m, edge, gateId } = await linkedEdge(pair);
  const seqs: number[] = [];
  for (const n of [1, 2, 3]) {
    await checkIn(edge, m, gateId, `TR-${n}`, `TX${n}`);
    seqs.push(one(pair.edge, "SELECT max(seq) FROM change_log WHERE peer = 'cloud'") as number);
  }
  const whole = batchesFrom(pair.edge, 'cloud', 0)[0]!;
  // Cut the log where each check-in ended, so each batch holds whole check-ins.
  let from = 1;
  const parts = seqs.map((to) => {
    const batch = { ...whole, from, to, rows: whole.rows.filter((r) => r.seq >= from && r.seq <= to) };
    from = to + 1;
    return batch;
  });
  return { whole, parts };
}

const movements = () => one(pair.cloud, 'SELECT count(*) FROM movement');

describe('a batch group the database fails as a whole', () => {
  it('a single batch: no ack, nothing stored; the resend applies it and is acknowledged', async () => {
    const { whole: batch } = await threeCheckIns();
    const applier = failingApplier(1);
    const r = cloudReceiver(applier);

    r.send([batch]);
    await r.settled();
    expect(applier.calls).toEqual([1]);
    expect(r.acks).toEqual([]);
    expect(movements()).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM sync_cursor WHERE peer = ?', SITE)).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);

    // The peer hears no ack and sends the batch again.
    r.send([batch]);
    await r.settled();
    expect(r.acks).toEqual([{ v: 1, stream: streamOf(pair.edge), upTo: batch.to, accept: ['deflate'] }]);
    expect(movements()).toBe(3);
    await r.receiver.stop();
  });

  it('a group of batches applied together: none is acknowledged; the resent group applies whole', async () => {
    const { parts: batches } = await threeCheckIns();
    const applier = failingApplier(1);
    const r = cloudReceiver(applier);

    // Received in one go, the three wait together and are applied as one group (one transaction).
    r.send(batches);
    await r.settled();
    expect(applier.calls).toEqual([3]);
    expect(r.acks).toEqual([]);
    expect(movements()).toBe(0);

    r.send(batches);
    await r.settled();
    expect(applier.calls).toEqual([3, 3]);
    expect(r.acks).toEqual([
      { v: 1, stream: streamOf(pair.edge), upTo: batches[2]!.to, accept: ['deflate'] },
    ]);
    expect(movements()).toBe(3);
    await r.receiver.stop();
  });

  it('a batch after a failed one is answered with the position before the failure, so the peer resends both', async () => {
    const [first, second] = (await threeCheckIns()).parts;
    const applier = failingApplier(1);
    const r = cloudReceiver(applier);

    r.send([first!]);
    await r.settled();
    r.send([second!]);
    await r.settled();
    // The second arrives after a gap: not applied, and the ack still says nothing was.
    expect(r.acks.map((a) => a.upTo)).toEqual([0]);
    expect(movements()).toBe(0);

    r.send([first!, second!]);
    await r.settled();
    expect(r.acks.map((a) => a.upTo)).toEqual([0, second!.to]);
    expect(movements()).toBe(2);
    await r.receiver.stop();
  });

  it('a busy database (another transaction open) is waited for, not a failure: applied and acknowledged once', async () => {
    const { whole: batch } = await threeCheckIns();
    const applier = failingApplier(2, () => new BusyError());
    const r = cloudReceiver(applier);

    r.send([batch]);
    await r.settled();
    expect(applier.calls).toEqual([1, 1, 1]);
    expect(r.acks).toEqual([{ v: 1, stream: streamOf(pair.edge), upTo: batch.to, accept: ['deflate'] }]);
    expect(movements()).toBe(3);
    await r.receiver.stop();
  });
});

describe("batches of one site shared by two cloud nodes (the broker's shared subscription)", () => {
  function node(parkEarlyMs: number) {
    const acks: Ack[] = [];
    const receiver = new BatchReceiver({
      deps: pair.cloud.core,
      peer: SITE,
      site: SITE,
      applier: pair.cloudApplier,
      parkEarlyMs,
      ack: async (ack) => {
        acks.push(ack);
      },
    });
    const send = (b: Batch) => receiver.receive(Buffer.from(JSON.stringify(b)));
    return { acks, receiver, send, settled: () => receiver.runInOrder(() => undefined) };
  }

  it('a batch that overtook the one before it waits for it, then applies and is acknowledged', async () => {
    const [first, second, third] = (await threeCheckIns()).parts;
    const a = node(5_000);
    const b = node(5_000);
    // Node B gets the second and third before node A has the first.
    b.send(second!);
    b.send(third!);
    await new Promise((r) => setTimeout(r, 100));
    expect(movements()).toBe(0);
    expect(b.acks).toEqual([]); // parked, not answered as a gap
    a.send(first!);
    await a.settled();
    await b.settled();
    expect(a.acks.map((x) => x.upTo)).toEqual([first!.to]);
    expect(b.acks.map((x) => x.upTo).at(-1)).toBe(third!.to);
    expect(movements()).toBe(3);
    await a.receiver.stop();
    await b.receiver.stop();
  });

  it('one node alone answers a gap at once with the position it has (the peer resends)', async () => {
    const [, second] = (await threeCheckIns()).parts;
    const alone = node(0);
    alone.send(second!);
    await alone.settled();
    expect(alone.acks.map((x) => x.upTo)).toEqual([0]);
    expect(movements()).toBe(0);
    await alone.receiver.stop();
  });

  it('batches that arrive out of order at one node are applied in the order of their positions', async () => {
    const [first, second, third] = (await threeCheckIns()).parts;
    const alone = node(0);
    // MQTT hands them over third, first, second: they wait together and are applied as 1, 2, 3.
    alone.send(third!);
    alone.send(first!);
    alone.send(second!);
    await alone.settled();
    expect(alone.acks.map((x) => x.upTo).at(-1)).toBe(third!.to);
    expect(movements()).toBe(3);
    await alone.receiver.stop();
  });

  it('a parked batch takes in the one before it when that one arrives at the same node', async () => {
    const [first, second, third] = (await threeCheckIns()).parts;
    const parked = node(5_000);
    parked.send(second!);
    parked.send(third!);
    await new Promise((r) => setTimeout(r, 100));
    expect(parked.acks).toEqual([]);
    const started = Date.now();
    parked.send(first!);
    await parked.settled();
    // Taken in while parked, not after the park ran out (5 s): one ack for all three.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(parked.acks.map((x) => x.upTo)).toEqual([third!.to]);
    expect(movements()).toBe(3);
    await parked.receiver.stop();
  });
});

describe('compressed batches at the receiver', () => {
  it('a deflated batch is applied and acknowledged like its JSON; a bomb is dropped unread, not acknowledged', async () => {
    const { whole: batch } = await threeCheckIns();
    const acks: Ack[] = [];
    const receiver = new BatchReceiver({
      deps: pair.cloud.core,
      peer: SITE,
      site: SITE,
      applier: pair.cloudApplier,
      ack: async (ack) => {
        acks.push(ack);
      },
    });
    receiver.receive(deflateSync(Buffer.alloc(32 * 1024 * 1024, 0x20)));
    await receiver.runInOrder(() => undefined);
    expect(acks).toEqual([]);
    expect(movements()).toBe(0);
    receiver.receive((await encodeBatch(JSON.stringify(batch), 'deflate')) as Buffer);
    await receiver.runInOrder(() => undefined);
    expect(acks).toEqual([{ v: 1, stream: streamOf(pair.edge), upTo: batch.to, accept: ['deflate'] }]);
    expect(movements()).toBe(3);
    await receiver.stop();
  });
});
