import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteWork } from '../../../shared/db/sql-work.js';
import { ConflictError } from '../../../shared/http/errors.js';
import {
  ADOPTABLE_KINDS,
  type AdoptionPlan,
  adoptionRefusal,
  chosenRows,
  mayBeAdopted,
  planAdoption,
  standaloneMark,
} from '../../../shared/sync/adoption.js';

/**
 * docs/sync.md "Dead letters, retry and adoption": only a formerly standalone edge's own yards,
 * locations and carriers are adopted; never a cloud-owned record a site may not write.
 */
describe('what adoption may take (adoption.ts)', () => {
  const yard = (siteId: unknown) => ({ entity: 'yard', id: 'y1', op: 'upsert', data: { siteId } });
  const none = () => undefined;

  it('yards, locations and carriers only, in that order', () => {
    expect(ADOPTABLE_KINDS).toEqual(['yard', 'location', 'carrier']);
  });

  it('never a user, an API key, a setting, an integration or a provider camera', () => {
    for (const entity of ['user', 'api_key', 'setting', 'integration', 'camera', 'gate']) {
      expect(mayBeAdopted('site-x', entity, 'upsert', {}), entity).toBe(false);
      const refusal = adoptionRefusal('site-x', { entity, id: 'r', op: 'upsert', data: {} }, true, none);
      expect(refusal?.rule, entity).toBe('never-adopted');
    }
    expect(
      adoptionRefusal('site-x', { entity: 'user', id: 'u', op: 'upsert', data: {} }, true, none)?.reason,
    ).toBe("Users are made at the cloud only: a site's are never adopted.");
    expect(
      adoptionRefusal('site-x', { entity: 'gate', id: 'g', op: 'upsert', data: {} }, true, none)?.reason,
    ).toBe("Records of this kind are made at the cloud only: a site's are never adopted.");
  });

  it('never a delete', () => {
    expect(mayBeAdopted('site-x', 'carrier', 'delete', {})).toBe(false);
    expect(
      adoptionRefusal('site-x', { entity: 'carrier', id: 'c', op: 'delete', data: {} }, true, none),
    ).toEqual({ rule: 'delete', reason: 'A site never deletes records the cloud manages.' });
  });

  it('a yard only when it names this site and the cloud holds no yard of that id for another', () => {
    expect(mayBeAdopted('site-x', 'yard', 'upsert', { siteId: 'site-x' })).toBe(true);
    expect(mayBeAdopted('site-x', 'yard', 'upsert', { siteId: 'site-a' })).toBe(false);
    expect(mayBeAdopted('site-x', 'carrier', 'upsert', {})).toBe(true);
    expect(adoptionRefusal('site-x', yard('site-x'), true, none)).toBeUndefined();
    expect(adoptionRefusal('site-x', yard('site-x'), true, () => 'site-x')).toBeUndefined();
    expect(adoptionRefusal('site-x', yard('site-a'), true, none)).toEqual({
      rule: 'other-site',
      reason: 'This yard names site site-a, not site-x: a yard is adopted only for the site it names.',
    });
    expect(
      adoptionRefusal('site-x', yard('site-x'), true, (id) => (id === 'y1' ? 'site-a' : undefined)),
    ).toEqual({
      rule: 'other-site',
      reason: 'The cloud already has this yard, for site site-a.',
    });
  });

  it('a location only in a yard of this site', () => {
    const location = (yardId: string) => ({ entity: 'location', id: 'l1', op: 'upsert', data: { yardId } });
    const sites = (id: unknown) => ({ 'y-x': 'site-x', 'y-a': 'site-a' })[String(id)];
    expect(adoptionRefusal('site-x', location('y-x'), true, sites)).toBeUndefined();
    expect(adoptionRefusal('site-x', location('y-a'), true, sites)).toEqual({
      rule: 'other-site',
      reason: 'This location is not in a yard of site site-x.',
    });
    expect(adoptionRefusal('site-x', location('y-none'), true, sites)?.rule).toBe('other-site');
  });

  it('nothing at all from a site provisioned linked', () => {
    const refusal = adoptionRefusal(
      'site-y',
      { entity: 'carrier', id: 'c', op: 'upsert', data: {} },
      false,
      none,
    );
    expect(refusal).toEqual({
      rule: 'linked-from-start',
      reason:
        'Site site-y was set up linked to the cloud: its edge never ran on its own, so it has no records of its own to adopt.',
    });
  });

  describe('the chosen rows', () => {
    const plan = (wasStandalone: boolean): AdoptionPlan => ({
      siteId: 'site-x',
      wasStandalone,
      rows: [
        { deadLetterId: 1, entity: 'carrier', id: 'c1', op: 'upsert', fields: {} },
        { deadLetterId: 2, entity: 'location', id: 'l1', op: 'upsert', fields: {} },
        { deadLetterId: 3, entity: 'yard', id: 'y1', op: 'upsert', fields: {} },
        {
          deadLetterId: 4,
          entity: 'user',
          id: 'u1',
          op: 'upsert',
          fields: {},
          refusal: { rule: 'never-adopted', reason: '' },
        },
        { deadLetterId: 5, entity: 'yard', id: 'y2', op: 'upsert', fields: {} },
      ],
    });
    const conflict = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(ConflictError);
        return err as ConflictError;
      }
      throw new Error('no conflict');
    };

    it('apply yards first, then locations, then carriers, each once', () => {
      expect(chosenRows(plan(true), [1, 2, 5, 3, 1]).map((r) => r.deadLetterId)).toEqual([3, 5, 2, 1]);
    });

    it('any row not adoptable, or not the site’s, refuses them all', () => {
      const e = conflict(() => chosenRows(plan(true), [1, 4, 9]));
      expect(e.code).toBe('not-adoptable');
      expect(e.status).toBe(409);
      expect(e.extra).toMatchObject({ siteId: 'site-x', deadLetterIds: [4, 9] });
      expect(e.detail).toMatch(/nothing was adopted/);
    });

    it('a site provisioned linked adopts nothing', () => {
      const e = conflict(() => chosenRows(plan(false), [1]));
      expect(e.code).toBe('site-linked-from-start');
      expect(e.extra).toMatchObject({ siteId: 'site-x' });
    });
  });

  describe('the plan read from the dead letters (in the caller’s transaction)', () => {
    function database() {
      const sqlite = new Database(':memory:');
      sqlite.exec(`
        CREATE TABLE sync_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE yard (id TEXT PRIMARY KEY, site_id TEXT NOT NULL);
        CREATE TABLE dead_letter (id INTEGER PRIMARY KEY AUTOINCREMENT, peer TEXT, seq INTEGER, entity TEXT,
          entity_id TEXT, error TEXT, data TEXT, at INTEGER);
        INSERT INTO yard VALUES ('y-a', 'site-a'), ('y-x-old', 'site-x');
      `);
      const letter = (peer: string, entity: string, id: string, data: unknown, error = '[cloud-owned] x') =>
        sqlite
          .prepare(
            'INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, 1, ?, ?, ?, ?, 0)',
          )
          .run(peer, entity, id, error, typeof data === 'string' ? data : JSON.stringify(data));
      const run = (site: string) => new SqliteWork(sqlite).run(planAdoption(site));
      return { sqlite, letter, run };
    }
    const up = (data: Record<string, unknown>) => ({ op: 'upsert', hlc: 'h', data });

    it('shows each of the site’s cloud-owned letters with what it is, and its refusal', () => {
      const { sqlite, letter, run } = database();
      sqlite.prepare('INSERT INTO sync_meta VALUES (?, ?)').run(standaloneMark('site-x'), '1');
      letter(
        'site-x',
        'yard',
        'y-new',
        up({ id: 'y-new', code: 'N', name: 'New', siteId: 'site-x', timeZone: 'UTC' }),
      );
      letter('site-x', 'location', 'l-new', up({ id: 'l-new', yardId: 'y-new', kind: 'spot', name: 'S1' }));
      letter('site-x', 'location', 'l-old', up({ id: 'l-old', yardId: 'y-x-old', kind: 'door', name: 'D1' }));
      letter('site-x', 'location', 'l-a', up({ id: 'l-a', yardId: 'y-a', kind: 'door', name: 'D9' }));
      letter('site-x', 'yard', 'y-a', up({ id: 'y-a', siteId: 'site-x' }));
      letter('site-x', 'yard', 'y-elsewhere', up({ id: 'y-elsewhere', siteId: 'site-a' }));
      letter(
        'site-x',
        'location',
        'l-elsewhere',
        up({ id: 'l-elsewhere', yardId: 'y-elsewhere', name: 'E' }),
      );
      letter(
        'site-x',
        'user',
        'u1',
        up({ id: 'u1', username: 'evil', role: 'admin', yardIds: null, passwordHash: 'h' }),
      );
      letter('site-x', 'carrier', 'c-gone', { op: 'delete', hlc: 'h', data: { id: 'c-gone' } });
      letter('site-x', 'carrier', 'c-bad', '{not json');
      letter('site-x', 'carrier', 'c-list', JSON.stringify({ op: 'upsert', data: [1] }));
      letter('site-x', 'carrier', 'c-other-rule', up({ name: 'x' }), '[other-site] x');
      letter('site-y', 'carrier', 'c-y', up({ name: 'y' }));

      const plan = run('site-x');
      expect(plan.siteId).toBe('site-x');
      expect(plan.wasStandalone).toBe(true);
      const by = new Map(plan.rows.map((r) => [r.id, r]));
      expect([...by.keys()]).toEqual([
        'y-new',
        'l-new',
        'l-old',
        'l-a',
        'y-a',
        'y-elsewhere',
        'l-elsewhere',
        'u1',
        'c-gone',
        'c-bad',
        'c-list',
      ]);
      expect(by.get('y-new')).toEqual({
        deadLetterId: 1,
        entity: 'yard',
        id: 'y-new',
        op: 'upsert',
        fields: { code: 'N', name: 'New', siteId: 'site-x' },
      });
      expect(by.get('l-new')?.refusal).toBeUndefined();
      expect(by.get('l-new')?.fields).toEqual({ yardId: 'y-new', kind: 'spot', name: 'S1' });
      expect(by.get('l-old')?.refusal).toBeUndefined();
      expect(by.get('l-a')?.refusal?.rule).toBe('other-site');
      // A yard the cloud holds for another site stays theirs, and so do locations in it.
      expect(by.get('y-a')?.refusal?.rule).toBe('other-site');
      expect(by.get('y-elsewhere')?.refusal?.rule).toBe('other-site');
      expect(by.get('l-elsewhere')?.refusal?.rule).toBe('other-site');
      expect(by.get('u1')?.fields).toEqual({ username: 'evil', role: 'admin', yardIds: null });
      expect(by.get('u1')?.refusal?.rule).toBe('never-adopted');
      expect(by.get('c-gone')).toMatchObject({ op: 'delete', refusal: { rule: 'delete' } });
      expect(by.get('c-bad')).toMatchObject({
        op: 'upsert',
        fields: { name: null, scac: null, usdot: null },
      });
      expect(by.get('c-bad')?.refusal).toBeUndefined();
      expect(by.get('c-list')?.fields).toEqual({ name: null, scac: null, usdot: null });
    });

    it('a site without the standalone mark: every row refused as linked from the start', () => {
      const { sqlite, letter, run } = database();
      sqlite.prepare('INSERT INTO sync_meta VALUES (?, ?)').run(standaloneMark('site-x'), '1');
      letter('site-y', 'carrier', 'c-y', up({ name: 'y' }));
      letter('site-y', 'yard', 'y-y', up({ siteId: 'site-y' }));
      const plan = run('site-y');
      expect(plan.wasStandalone).toBe(false);
      expect(plan.rows.map((r) => r.refusal?.rule)).toEqual(['linked-from-start', 'linked-from-start']);
      expect(standaloneMark('site-y')).toBe('site-was-standalone:site-y');
    });
  });
});
