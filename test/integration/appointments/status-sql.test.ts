import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APPOINTMENT_STATUS_SQL,
  appointmentStatus,
  HOLDS_CAPACITY,
  HOLDS_CAPACITY_SQL,
  type StatusTimes,
} from '../../../shared/modules/appointments/status.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../../helpers/postgres.js';

/**
 * The SQL forms of the status rules (status.ts) agree with appointmentStatus, the one home of the
 * rule, for every combination of set and unset times, evaluated by each database itself. The
 * capacity condition is written out for its index, so it is the one that can drift.
 */
const FIELDS = ['completedAt', 'dockedAt', 'cancelledAt', 'arrivedAt', 'noShowAt'] as const;
const COLUMNS = ['completed_at', 'docked_at', 'cancelled_at', 'arrived_at', 'no_show_at'];
const combinations: StatusTimes[] = Array.from({ length: 1 << FIELDS.length }, (_, bits) =>
  Object.fromEntries(FIELDS.map((f, i) => [f, bits & (1 << i) ? 1_700_000_000_000 + i : null])),
) as unknown as StatusTimes[];

type Evaluate = (times: StatusTimes) => Promise<{ status: string; holds: boolean }>;

describe.each(TEST_DIALECTS)('appointment status in SQL (%s)', (dialect) => {
  let evaluate: Evaluate;
  let close: () => Promise<void>;

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      const db = new Database(':memory:');
      const row = COLUMNS.map((c) => `? AS ${c}`).join(', ');
      const stmt = db.prepare(
        `SELECT ${APPOINTMENT_STATUS_SQL} AS status, CASE WHEN ${HOLDS_CAPACITY_SQL} THEN 1 ELSE 0 END AS holds FROM (SELECT ${row}) a`,
      );
      evaluate = async (t) => {
        const r = stmt.get(...FIELDS.map((f) => t[f])) as { status: string; holds: number };
        return { status: r.status, holds: r.holds === 1 };
      };
      close = async () => void db.close();
    } else {
      const database: TestDatabase = await createTestDatabase();
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const row = COLUMNS.map((c, i) => `CAST($${i + 1} AS bigint) AS ${c}`).join(', ');
      const text = `SELECT ${APPOINTMENT_STATUS_SQL} AS status, ${HOLDS_CAPACITY_SQL} AS holds FROM (SELECT ${row}) a`;
      evaluate = async (t) => {
        const r = await client.query(
          text,
          FIELDS.map((f) => t[f]),
        );
        return { status: r.rows[0].status, holds: r.rows[0].holds === true };
      };
      close = async () => {
        await client.end();
        await database.drop();
      };
    }
  });
  afterAll(() => close());

  it('gives the status appointmentStatus gives, for all 32 combinations of times', async () => {
    for (const times of combinations) {
      expect({ times, status: (await evaluate(times)).status }).toEqual({
        times,
        status: appointmentStatus(times),
      });
    }
  });

  it('holds capacity exactly when the status is scheduled, arrived or docked', async () => {
    let holding = 0;
    for (const times of combinations) {
      const expected = HOLDS_CAPACITY.has(appointmentStatus(times));
      if (expected) holding++;
      expect({ times, holds: (await evaluate(times)).holds }).toEqual({ times, holds: expected });
    }
    expect(holding).toBeGreaterThan(0);
  });
});
