import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase } from '../../shared/db/database.js';

/**
 * Fills a database the way years of yard history would: yards, carriers, trailers and movements
 * (with their change_log rows). Raw SQL on purpose: this is a fixture, not an API path, and must
 * write a million rows in seconds.
 */
export function seedBenchDatabase(
  file: string,
  opts: { trailers: number; movements: number; onProgress?: (done: number) => void },
): { yardIds: string[]; gateIds: string[] } {
  openDatabase(file).close(); // create + migrate
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  const hlc = (i: number) =>
    `${String(now).padStart(13, '0')}-${(i % 65536).toString(16).padStart(4, '0')}-bench`;
  const yardIds = [uuidv7(), uuidv7(), uuidv7()];
  const gateIds: string[] = [];
  const carrierIds = Array.from({ length: 50 }, () => uuidv7());
  const trailerIds: string[] = [];
  const insertYard = db.prepare(
    `INSERT INTO yard (id, code, name, time_zone, capacity, site_id, created_at, updated_at, hlc) VALUES (?, ?, ?, 'America/Chicago', 5000, 'site-1', ?, ?, ?)`,
  );
  const insertGate = db.prepare(
    `INSERT INTO gate (id, yard_id, name, direction, relay, created_at, updated_at, hlc) VALUES (?, ?, ?, 'both', ?, ?, ?, ?)`,
  );
  const insertCarrier = db.prepare(
    `INSERT INTO carrier (id, name, scac, created_at, updated_at, hlc) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertTrailer = db.prepare(
    `INSERT INTO trailer (id, carrier_id, number, type, load_status, yard_id, arrived_at, created_at, updated_at, hlc)
     VALUES (?, ?, ?, 'dry_van', ?, ?, ?, ?, ?, ?)`,
  );
  const insertMovement = db.prepare(
    `INSERT INTO movement (id, yard_id, gate_id, direction, at, trailer_id, carrier_id, load_status, created_at, hlc)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'loaded', ?, ?)`,
  );
  const insertLog = db.prepare(
    `INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES ('cloud', ?, ?, 'upsert', ?, 'bench', 1, ?)`,
  );
  db.transaction(() => {
    yardIds.forEach((id, i) => {
      insertYard.run(id, `Y${i + 1}`, `Bench yard ${i + 1}`, now, now, hlc(i));
      const gateId = uuidv7();
      gateIds.push(gateId);
      insertGate.run(
        gateId,
        id,
        'Main gate',
        JSON.stringify({ driver: 'simulated', channel: 1, pulseMs: 100, activeLow: false }),
        now,
        now,
        hlc(i),
      );
    });
    carrierIds.forEach((id, i) => {
      insertCarrier.run(
        id,
        `Carrier ${i}`,
        `C${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`,
        now,
        now,
        hlc(i),
      );
    });
    for (let i = 0; i < opts.trailers; i++) {
      const id = uuidv7();
      trailerIds.push(id);
      const yard = i % 4 === 3 ? null : yardIds[i % 3]!;
      insertTrailer.run(
        id,
        carrierIds[i % 50],
        `T${100000 + i}`,
        i % 2 ? 'loaded' : 'empty',
        yard,
        yard ? now - i * 1000 : null,
        now,
        now,
        hlc(i),
      );
    }
  })();
  const batch = 50_000;
  const start = now - 3 * 365 * 86_400_000;
  const step = Math.floor((now - start) / opts.movements);
  for (let done = 0; done < opts.movements; done += batch) {
    db.transaction(() => {
      for (let i = done; i < Math.min(done + batch, opts.movements); i++) {
        const id = uuidv7();
        const yard = i % 3;
        const trailer = trailerIds[i % trailerIds.length]!;
        const at = start + i * step;
        const h = hlc(i);
        insertMovement.run(
          id,
          yardIds[yard],
          gateIds[yard],
          i % 2 ? 'out' : 'in',
          at,
          trailer,
          carrierIds[i % 50],
          at,
          h,
        );
        insertLog.run(
          'movement',
          id,
          h,
          JSON.stringify({ id, at, trailerId: trailer, requestId: randomUUID() }),
        );
      }
    })();
    opts.onProgress?.(Math.min(done + batch, opts.movements));
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { yardIds, gateIds };
}
