import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../shared/db/database.js';
import { sendStoreOf } from '../../shared/sync/send-store.js';

/**
 * The send side's read of a week offline (docs/architecture.md "Two databases, and several cloud nodes": SendStore on SQLite must stay as fast as the
 * synchronous Outbox it replaced): BENCH_SEND_ROWS (150,000) change-log rows of ~550 bytes for one
 * peer, read into batches (500 rows, 256 KiB) through SendStore.read as the sync runtime does,
 * from seq 1 to the end. Reported: process CPU per full read (median of 5, after one warm-up) and
 * rows/s of CPU. No target: compare runs (the catch-up benchmark, sync-catchup.ts, judges the whole
 * drain); this isolates the sender's share of it.
 *
 * Run: npx tsx test/bench/sync-send-read.ts
 */
const ROWS = Number(process.env.BENCH_SEND_ROWS ?? 150_000);
const dir = mkdtempSync(join(tmpdir(), 'yard-bench-send-read-'));
const db = openDatabase(join(dir, 'y.db'));
try {
  const data = JSON.stringify({
    id: '0190a0a0-0000-7000-8000-000000000000',
    sessionId: '0190a0a0-0000-7000-8000-000000000001',
    lat: 52.123456,
    lon: 13.654321,
    note: 'n'.repeat(400),
    at: 1_700_000_000_000,
  });
  const insert = db.sqlite.prepare(
    "INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES ('cloud', 'session_location', ?, 'upsert', '1700000000000-0000-site', 'site', 11, ?)",
  );
  db.sqlite.transaction(() => {
    for (let i = 0; i < ROWS; i++) insert.run(`row-${i}`, data);
  })();
  const limits = { batchRows: 500, batchBytes: 262_144 };
  const store = sendStoreOf({ db, config: { sync: limits } as never });
  const cpuMs: number[] = [];
  let batches = 0;
  for (let round = 0; round < 6; round++) {
    const start = process.cpuUsage();
    let rows = 0;
    batches = 0;
    for (let from = 1; ; ) {
      const batch = await store.read('cloud', 'bench-site', from);
      if (!batch) break;
      rows += batch.rows;
      batches += 1;
      from = batch.to + 1;
    }
    if (rows !== ROWS) throw new Error(`read ${rows} rows, not ${ROWS}`);
    const used = process.cpuUsage(start);
    if (round > 0) cpuMs.push((used.user + used.system) / 1000);
  }
  cpuMs.sort((a, b) => a - b);
  const median = cpuMs[Math.floor(cpuMs.length / 2)]!;
  console.log(
    `SendStore.read, SQLite: ${ROWS} rows in ${batches} batches; CPU per full read ${cpuMs.map((m) => m.toFixed(0)).join(', ')} ms (median ${median.toFixed(0)} ms, ${Math.round((ROWS / median) * 1000)} rows/s of CPU)`,
  );
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
