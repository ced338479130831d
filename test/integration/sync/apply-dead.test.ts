import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { ChangeApplier } from '../../../shared/sync/applier.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import {
  batchesFrom,
  checkIn,
  expectSameRows,
  linkedEdge,
  NEWER_SCHEMA,
  one,
  SITE,
  SyncPair,
  total,
} from './apply-fixture.js';

/** Rows that cannot be applied when they arrive: dead letters and rows of a newer schema. */
let pair: SyncPair;

beforeEach(async () => {
  pair = await SyncPair.start();
});
afterEach(async () => {
  await pair.close();
});

const iso = () => new Date(pair.clock.now()).toISOString();

describe('apply: dead letters and pending rows', () => {
  it('a row with an unknown reference goes to dead_letter, the rest applies; a retry after the reference arrives applies it', async () => {
    const { m, edge, gateId } = await linkedEdge(pair);
    const moved = await checkIn(edge, m, gateId);
    const inspection = await edge.post(`/api/truck/${moved.truckId}/inspections`, {
      yardId: m.yardId,
      inspectedAt: iso(),
      result: 'fail',
      items: [{ code: 'lights', ok: false }],
    });
    expect(inspection.status).toBe(201);
    // The gate's row is lost on the way: the movement names a gate the cloud does not know.
    const [batch, ...rest] = batchesFrom(pair.edge, 'cloud', 0);
    expect(rest).toHaveLength(0);
    const withoutGate = { ...batch!, rows: batch!.rows.filter((r) => r.entity !== 'gate') };
    const outcome = pair.cloudApplier.apply(SITE, withoutGate);
    expect(outcome).toMatchObject({ deadLetters: 1, upTo: batch!.to, gap: false });
    const letter = pair.cloud.db.sqlite.prepare('SELECT * FROM dead_letter').get() as Record<string, unknown>;
    expect(letter).toMatchObject({ peer: SITE, entity: 'movement', entity_id: moved.id });
    expect(String(letter.error)).toContain('FOREIGN KEY');
    expect(JSON.parse(String(letter.data))).toMatchObject({ op: 'upsert', data: { id: moved.id, gateId } });
    expect(one(pair.cloud, 'SELECT count(*) FROM movement')).toBe(0);
    // The rows after it applied.
    expect(one(pair.cloud, 'SELECT count(*) FROM truck_inspection WHERE id = ?', inspection.body.id)).toBe(1);
    expect(pair.cloudApplier.retryDeadLetters()).toEqual({ retried: 1, applied: 0 });

    // The gate arrives later (renamed at the edge), then the retry applies the movement.
    expect((await edge.patch(`/api/yard/${m.yardId}/gate/${gateId}`, { name: 'Main gate' })).status).toBe(
      200,
    );
    const later = batchesFrom(pair.edge, 'cloud', batch!.to);
    expect(total(later.map((b) => pair.cloudApplier.apply(SITE, b))).deadLetters).toBe(0);
    expect(pair.cloudApplier.retryDeadLetters({ peer: SITE })).toEqual({ retried: 1, applied: 1 });
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM visit WHERE in_movement_id = ?', moved.id)).toBe(1);
    expectSameRows(pair, ['gate', 'movement', 'truck_inspection', 'trailer', 'truck']);
  });

  it('a retried dead letter that a newer change of the row replaced is dropped, not applied', async () => {
    const { m, edge, gateId } = await linkedEdge(pair);
    const [batch] = batchesFrom(pair.edge, 'cloud', 0);
    // The gate's first version arrives broken (a direction the schema refuses): a dead letter.
    const broken: Batch = {
      ...batch!,
      rows: batch!.rows.map((r) =>
        r.entity === 'gate' ? { ...r, data: { ...r.data, direction: 'sideways' } } : r,
      ),
    };
    expect(pair.cloudApplier.apply(SITE, broken).deadLetters).toBe(1);
    pair.clock.advance(1000);
    expect((await edge.patch(`/api/yard/${m.yardId}/gate/${gateId}`, { name: 'Renamed' })).status).toBe(200);
    expect(
      total(batchesFrom(pair.edge, 'cloud', batch!.to).map((b) => pair.cloudApplier.apply(SITE, b))),
    ).toMatchObject({
      applied: 1,
      deadLetters: 0,
    });
    // The old version would now apply, but the stored row is newer: the letter goes, the row stays.
    const letterData = JSON.parse(String(one(pair.cloud, 'SELECT data FROM dead_letter')));
    pair.cloud.db.sqlite
      .prepare('UPDATE dead_letter SET data = ?')
      .run(JSON.stringify({ ...letterData, data: { ...letterData.data, direction: 'both' } }));
    expect(pair.cloudApplier.retryDeadLetters({ peer: SITE })).toEqual({ retried: 1, applied: 1 });
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(one(pair.cloud, 'SELECT name FROM gate WHERE id = ?', gateId)).toBe('Renamed');
    expectSameRows(pair, ['gate']);
  });

  it('rows of an unknown entity or with bad data are dead letters; a movement before the units it names still applies', async () => {
    const { m, edge, gateId } = await linkedEdge(pair);
    const moved = await checkIn(edge, m, gateId);
    const [batch] = batchesFrom(pair.edge, 'cloud', 0);
    const movement = batch!.rows.find((r) => r.entity === 'movement')!;
    // The movement first, before the trailer and truck it names: it is tried again at the end.
    const reordered = [movement, ...batch!.rows.filter((r) => r !== movement)].map((r, i) => ({
      ...r,
      seq: batch!.from + i,
    }));
    const next = batch!.from + reordered.length;
    const bad: Batch = {
      ...batch!,
      rows: [
        ...reordered,
        { seq: next, entity: 'spaceship', id: 'x', op: 'upsert', hlc: movement.hlc, data: {} },
        {
          seq: next + 1,
          entity: 'trailer',
          id: 't-bad',
          op: 'upsert',
          hlc: movement.hlc,
          data: { id: 't-bad', number: null },
        },
      ],
      to: next + 1,
    };
    const outcome = pair.cloudApplier.apply(SITE, bad);
    expect(outcome).toMatchObject({ deadLetters: 2, upTo: next + 1 });
    expect(pair.cloud.db.sqlite.prepare('SELECT entity, error FROM dead_letter ORDER BY seq').all()).toEqual([
      { entity: 'spaceship', error: 'unknown entity "spaceship"' },
      { entity: 'trailer', error: expect.stringContaining('NOT NULL') },
    ]);
    expect(one(pair.cloud, 'SELECT count(*) FROM movement WHERE id = ?', moved.id)).toBe(1);
    expect(one(pair.cloud, "SELECT count(*) FROM trailer WHERE id = 't-bad'")).toBe(0);
  });

  it('a full disk is not the rows’ fault: nothing is applied or dead-lettered, and the batch applies later', () => {
    const now = pair.clock.now();
    const hlc = `${String(now).padStart(13, '0')}-0000-${SITE}`;
    // Trailers registered at the gate, with long notes: they need new pages.
    const rows = Array.from({ length: 50 }, (_, i) => {
      const id = `trailer-${i}`;
      const data = {
        id,
        number: `T${i}`,
        notes: 'x'.repeat(4000),
        createdAt: now,
        updatedAt: now,
        hlc,
        version: 1,
      };
      return { seq: i + 1, entity: 'trailer', id, op: 'upsert' as const, hlc, data };
    });
    const batch: Batch = {
      v: 1,
      site: SITE,
      stream: 'edge-stream',
      from: 1,
      to: rows.length,
      schemaV: 1,
      rows,
    };
    const sqlite = pair.cloud.db.sqlite;
    sqlite.pragma(`max_page_count = ${Number(sqlite.pragma('page_count', { simple: true }))}`);
    try {
      expect(() => pair.cloudApplier.apply(SITE, batch)).toThrow(/full/i);
    } finally {
      sqlite.pragma('max_page_count = 1073741823');
    }
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM sync_cursor WHERE peer = ?', SITE)).toBe(0);
    expect(one(pair.cloud, "SELECT count(*) FROM trailer WHERE id LIKE 'trailer-%'")).toBe(0);
    expect(pair.cloudApplier.apply(SITE, batch)).toMatchObject({ applied: 50, deadLetters: 0, upTo: 50 });
  });

  it('keeps rows of a newer schema pending, in order, and applies them after an upgrade', async () => {
    const { m, edge, gateId } = await linkedEdge(pair);
    await checkIn(edge, m, gateId);
    const [first] = batchesFrom(pair.edge, 'cloud', 0);
    const newer = pair.cloudApplier.apply(SITE, { ...first!, schemaV: NEWER_SCHEMA });
    expect(newer).toMatchObject({ pending: first!.rows.length, applied: 0, upTo: first!.to });
    expect(one(pair.cloud, 'SELECT count(*) FROM sync_pending')).toBe(first!.rows.length);
    expect(one(pair.cloud, 'SELECT count(*) FROM movement')).toBe(0);
    // A later batch of the same peer waits behind the parked rows, whatever its schema.
    pair.clock.advance(1000);
    await checkIn(edge, m, gateId, 'TR-2', 'TX2');
    const [second] = batchesFrom(pair.edge, 'cloud', first!.to);
    expect(pair.cloudApplier.apply(SITE, second!)).toMatchObject({
      pending: second!.rows.length,
      applied: 0,
    });
    // This program is still too old: nothing leaves the table.
    expect(pair.cloudApplier.applyPending()).toBe(0);

    const upgraded = new ChangeApplier(pair.cloud.core, { schemaVersion: SCHEMA_VERSION + 1 });
    expect(upgraded.applyPending()).toBe(first!.rows.length + second!.rows.length);
    expect(one(pair.cloud, 'SELECT count(*) FROM sync_pending')).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM dead_letter')).toBe(0);
    expect(one(pair.cloud, 'SELECT count(*) FROM visit')).toBe(2);
    expectSameRows(pair, ['gate', 'movement', 'trailer', 'truck']);
    // New batches apply directly again.
    pair.clock.advance(1000);
    await checkIn(edge, m, gateId, 'TR-3', 'TX3');
    expect(total(pair.up().slice(-1))).toMatchObject({ pending: 0, deadLetters: 0 });
  });
});
