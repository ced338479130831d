import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../shared/db/migrate.js';
import {
  SYNCED_BY_TABLE,
  SYNCED_ENTITIES,
  SYNCED_SQL_TABLES,
  toSnake as snake,
} from '../../shared/sync/entities.js';

/**
 * docs/sync.md "Conflict rules": carrier users, email settings and messages, webhook endpoints and
 * deliveries, and the job leases stay where they are written (the cloud, or a standalone edge);
 * none may ever reach a site. A table that is not in SYNCED_ENTITIES has no change_log rows and is
 * in no snapshot, by construction: this list keeps anyone from registering one of them later (the
 * password hashes of carrier users, SMTP passwords and webhook secrets would follow).
 */
const CLOUD_ONLY = [
  'carrierUser',
  'emailSettings',
  'emailMessage',
  'webhookEndpoint',
  'webhookEvent',
  'webhookDelivery',
  'webhookAttempt',
  'jobLease',
] as const;

describe('cloud-only tables never sync', () => {
  it.each(CLOUD_ONLY)('%s is not a synced entity', (table) => {
    expect(SYNCED_BY_TABLE.has(table)).toBe(false);
    expect(SYNCED_SQL_TABLES.has(snake(table))).toBe(false);
    expect(SYNCED_ENTITIES.map((e) => e.table)).not.toContain(table);
    expect(SYNCED_ENTITIES.map((e) => e.entity)).not.toContain(snake(table));
  });

  it('each exists in the schema without the columns of a synced row (hlc)', () => {
    const db = new Database(':memory:');
    try {
      migrate(db);
      for (const table of CLOUD_ONLY) {
        const columns = (db.prepare(`PRAGMA table_info(${snake(table)})`).all() as { name: string }[]).map(
          (c) => c.name,
        );
        expect(columns.length, table).toBeGreaterThan(0);
        expect(columns, table).not.toContain('hlc');
      }
    } finally {
      db.close();
    }
  });
});
