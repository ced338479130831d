import { describe, expect, it } from 'vitest';
import { SYNCED_ENTITIES, SYNCED_SQL_TABLES, toSnake } from '../../../shared/sync/entities.js';

/**
 * The SMTP settings (with the password) and the mails (with carriers' addresses) stay where mail is
 * sent from (docs/sync.md "Conflict rules": cloud only, never sent to sites). A table that is not
 * synced cannot reach a change log or a site's snapshot: this test names them, so registering one
 * later fails here.
 */
const CLOUD_ONLY = ['email_settings', 'email_message'];

describe('the email tables', () => {
  it('are none of the synced entities', () => {
    const synced = new Set([...SYNCED_SQL_TABLES, ...SYNCED_ENTITIES.map((e) => toSnake(e.table))]);
    expect(CLOUD_ONLY.filter((t) => synced.has(t))).toEqual([]);
  });
});
