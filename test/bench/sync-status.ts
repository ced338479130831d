import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedBroker } from '../../cloud/broker.js';
import { NoRelays } from '../../cloud/no-relays.js';
import { cloudSync } from '../../cloud/sync/index.js';
import { createApp } from '../../shared/app.js';
import { NodeOnvifClient } from '../../shared/cameras/onvif-client.js';
import { CAMERA_PROVIDER_KINDS } from '../../shared/cameras/providers/index.js';
import { loadConfig } from '../../shared/config.js';
import { openDatabase } from '../../shared/db/database.js';
import { SiteRepo } from '../../shared/modules/sync/sites.js';
import { format } from '../../shared/sync/hlc.js';
import { SendCursors } from '../helpers/send-sync.js';
import { verdict } from './lib.js';

/**
 * GET /api/sync/status and /readyz at a cloud with an organisation's backlog (docs/performance.md): 200 sites,
 * BENCH_STATUS_ROWS (5,000) change-log rows per site with the sites' seqs interleaved, half of each
 * site's rows acknowledged, 10 dead letters per site. The queue depths come from the counts that
 * migration 0011's triggers keep; for comparison, the per-site count(*) the status used to run is
 * timed on the same database. Also the cost the triggers add to a change-log insert. Target: p95
 * < 200 ms for both routes (the dashboard's route target); the old count is shown, not judged.
 */
const SITES = 200;
const ROWS_PER_SITE = Number(process.env.BENCH_STATUS_ROWS ?? 5_000);
const REQUESTS = 200;
const dir = mkdtempSync(join(tmpdir(), 'yard-bench-status-'));
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const ms = (x: number) => `${x.toFixed(2)} ms`;

const broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
const db = openDatabase(join(dir, 'yard.db'));
const config = loadConfig(
  {
    YARD_DATA_DIR: dir,
    YARD_ROLE: 'cloud',
    YARD_MQTT_URL: broker.url,
    YARD_ADMIN_USER: 'bench',
    YARD_ADMIN_PASSWORD: 'bench-password-1',
    YARD_LOG_LEVEL: 'warn',
  },
  { validateResponses: false },
);
const yard = createApp({
  db,
  config,
  gates: new NoRelays(),
  cameras: {
    onvif: new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: 9 }),
    providers: CAMERA_PROVIDER_KINDS,
  },
  sync: cloudSync(),
});
let server: Server | undefined;

try {
  const sqlite = db.sqlite;
  const sites = new SiteRepo(db.kysely);
  const ids = Array.from({ length: SITES }, (_, i) => `site-${String(i).padStart(3, '0')}`);
  for (const id of ids) await sites.create({ id, name: `Site ${id}`, password: 'bench-site-password' });

  const insert = sqlite.prepare(
    "INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES (?, 'trailer', ?, 'upsert', ?, 'cloud', 11, '{\"id\":\"x\"}')",
  );
  const base = Date.now() - 3_600_000;
  const t0 = performance.now();
  sqlite.transaction(() => {
    for (let r = 0; r < ROWS_PER_SITE; r++) {
      for (const id of ids) insert.run(id, `t${r}`, format(base + r, 0, 'cloud'));
    }
  })();
  const logMs = performance.now() - t0;
  const total = SITES * ROWS_PER_SITE;
  const cursors = new SendCursors(sqlite);
  const mid = sqlite
    .prepare('SELECT seq FROM change_log WHERE peer = ? ORDER BY seq LIMIT 1 OFFSET ?')
    .pluck();
  const dead = sqlite.prepare(
    "INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, 1, 'trailer', 'x', '[malformed]', '{}', 0)",
  );
  sqlite.transaction(() => {
    for (const id of ids) {
      cursors.save(id, Number(mid.get(id, ROWS_PER_SITE / 2 - 1)), Date.now(), false);
      for (let i = 0; i < 10; i++) dead.run(id);
    }
  })();
  console.log(
    `sync status: ${SITES} sites, ${total.toLocaleString('en')} change-log rows (written in ${(logMs / 1000).toFixed(1)} s, ${((logMs * 1000) / total).toFixed(1)} µs a row with the counting triggers)`,
  );

  await yard.services.auth.ensureAdmin();
  await yard.start();
  server = await new Promise<Server>((resolve) => {
    const s = yard.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench-password-1' }),
  });
  const { token } = (await login.json()) as { token: string };

  async function time(path: string, check: (body: any) => void): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < REQUESTS + 20; i++) {
      const start = performance.now();
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = await res.json();
      const took = performance.now() - start;
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      if (i === 0) check(body);
      if (i >= 20) times.push(took);
    }
    return times;
  }
  // What the status computed per call before: a count of each site's unacknowledged rows and of its dead letters.
  const countAfter = sqlite.prepare('SELECT count(*) FROM change_log WHERE peer = ? AND seq > ?').pluck();
  const countDead = sqlite.prepare('SELECT count(*) FROM dead_letter WHERE peer = ?').pluck();
  const acked = sqlite.prepare('SELECT acked_seq FROM sync_cursor WHERE peer = ?').pluck();
  const old: number[] = [];
  let recounted = -1;
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    let queued = 0;
    for (const id of ids) {
      queued += Number(countAfter.get(id, acked.get(id)));
      countDead.get(id);
    }
    old.push(performance.now() - start);
    recounted = queued;
  }

  // Half of each site's rows, and what the start wrote for every site since (the admin user).
  const expectQueued = recounted;
  const status = await time('/api/sync/status', (body) => {
    if (body.sites.length !== SITES || body.queued !== expectQueued || body.deadLetters !== SITES * 10)
      throw new Error(`unexpected figures: queued ${body.queued}, dead letters ${body.deadLetters}`);
  });
  const ready = await time('/readyz', (body) => {
    if (body.checks.sync.queued !== expectQueued) throw new Error(`readyz queued ${body.checks.sync.queued}`);
  });

  // The triggers' cost on the write path: 100,000 inserts with them and without them.
  const scratch = openDatabase(join(dir, 'scratch.db'));
  const scratchInsert = scratch.sqlite.prepare(insert.source);
  const timed = () => {
    const start = performance.now();
    scratch.sqlite.transaction(() => {
      for (let r = 0; r < 100_000; r++)
        scratchInsert.run(ids[r % SITES], `t${r}`, format(base + r, 0, 'cloud'));
    })();
    return performance.now() - start;
  };
  const withTriggers = timed();
  scratch.sqlite.exec(
    'DROP TRIGGER change_log_count_insert; DROP TRIGGER change_log_count_delete; DROP TRIGGER change_log_count_update;',
  );
  const without = timed();
  scratch.close();

  const ok = pct(status, 95) < 200 && pct(ready, 95) < 200;
  console.log(
    `  GET /api/sync/status: p50 ${ms(pct(status, 50))}, p95 ${ms(pct(status, 95))}, p99 ${ms(pct(status, 99))}`,
  );
  console.log(
    `  GET /readyz:          p50 ${ms(pct(ready, 50))}, p95 ${ms(pct(ready, 95))}, p99 ${ms(pct(ready, 99))}`,
  );
  console.log(`  (before: counting the queues and dead letters per call alone took p50 ${ms(pct(old, 50))})`);
  console.log(
    `  change-log insert, 100,000 rows: ${ms(withTriggers)} with the counting triggers, ${ms(without)} without (+${(((withTriggers - without) * 1000) / 100_000).toFixed(2)} µs a row)`,
  );
  console.log(`  target p95 < 200 ms for both routes ${verdict(ok)}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  await yard.stop();
  db.close();
  await broker.stop();
  rmSync(dir, { recursive: true, force: true });
}
