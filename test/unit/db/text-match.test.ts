import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { textMatchRank, textStartsWithKey } from '../../../shared/db/sql-helpers.js';

/**
 * The search's text pieces (docs/api.md "Search") on a real SQLite database: a prefix written as an
 * index range finds exactly the texts that start with the key, and the rank is 3 equal, 2 starts
 * with, 1 contains, 0 otherwise, ignoring ASCII case only.
 */
const sqlite = new Database(':memory:');
const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
afterAll(() => db.destroy());

const TEXTS = ['ab', 'abc', 'abc 1', 'abd', 'abb', 'xabc', 'ab\u00ffz', 'ABC'];

async function startsWith(key: string): Promise<string[]> {
  const rows = await sql<{ t: string }>`select t from (${sql.join(
    TEXTS.map((t) => sql`select ${t} as t`),
    sql` union all `,
  )}) x where ${textStartsWithKey(sql.ref('t'), key)} order by t`.execute(db);
  return rows.rows.map((r) => r.t);
}

describe('textStartsWithKey', () => {
  it('finds the texts that start with the key and no other', async () => {
    expect(await startsWith('abc')).toEqual(['abc', 'abc 1']);
    expect(await startsWith('ab')).toEqual(['ab', 'abb', 'abc', 'abc 1', 'abd', 'ab\u00ffz']);
    expect(await startsWith('ab\u00ff')).toEqual(['ab\u00ffz']);
    expect(await startsWith('q')).toEqual([]);
  });
});

describe('textMatchRank', () => {
  it('ranks equal 3, starts with 2, contains 1, else 0, ignoring ASCII case', async () => {
    const rank = async (text: string, q: string) =>
      (await sql<{ r: number }>`select ${textMatchRank(sql.val(text), q)} as r`.execute(db)).rows[0]!.r;
    expect(await rank('Prairie Freight', 'prairie freight')).toBe(3);
    expect(await rank('Prairie Freight', 'PRAIR')).toBe(2);
    expect(await rank('Prairie Freight', 'freight')).toBe(1);
    expect(await rank('Prairie Freight', 'rail')).toBe(0);
    expect(await rank('100% Haul', '0%')).toBe(1);
    expect(await rank('100 Haul', '0%')).toBe(0);
  });
});
