import { expect } from 'vitest';
import { hashSecret } from '../../shared/auth/secrets.js';
import type { AppDatabase } from '../../shared/db/database.js';
import type { RelayBinding } from '../../shared/hardware.js';
import { newId } from '../../shared/ids.js';
import type { SyncedTable } from '../../shared/sync/entities.js';
import type { Client } from './http.js';
import type { TestApp } from './test-app.js';

/**
 * The one set of builders for seeding tests. Each builder has defaults that make a valid record and
 * takes overrides for what the test cares about; codes and names are unique per call unless given.
 *
 * `seed(client)` goes through the real HTTP API as that client (the usual way: what a user does).
 * `seedRows(app)` writes rows through ChangeCapture, the way the owning module (or a sync) writes
 * them: for tests of one module that need another module's master data with fixed fields
 * (a yard on site-1, a gate with a relay) without depending on that module's API.
 */

let seq = 0;
/** A short suffix that is unique in this test process. */
export const unique = () => `${++seq}${Math.random().toString(36).slice(2, 6)}`.toUpperCase();

/** The 201 body of a create through the API; fails the test with the answer otherwise. */
async function created(res: Promise<{ status: number; text: string; body: any }>): Promise<any> {
  const r = await res;
  expect(r.status, r.text).toBe(201);
  return r.body;
}

export type Fields = Record<string, unknown>;

export function seed(api: Client) {
  return {
    yard: (fields: Fields = {}) => {
      const code = (fields.code as string | undefined) ?? `Y${unique()}`;
      return created(api.post('/api/yard', { code, name: `Yard ${code}`, timeZone: 'UTC', ...fields }));
    },
    location: (yardId: string, fields: Fields = {}) =>
      created(api.post(`/api/yard/${yardId}/location`, { kind: 'spot', name: `S-${unique()}`, ...fields })),
    gate: (yardId: string, fields: Fields = {}) =>
      created(
        api.post(`/api/yard/${yardId}/gate`, { name: `Gate ${unique()}`, direction: 'both', ...fields }),
      ),
    carrier: (fields: Fields = {}) =>
      created(api.post('/api/carrier', { name: `Carrier ${unique()}`, ...fields })),
    driver: (fields: Fields = {}) =>
      created(api.post('/api/driver', { kind: 'yard', firstName: 'Jo', lastName: 'Driver', ...fields })),
    /** A yard driver with code and PIN, logged in through the drivers' login: its id and a client as it. */
    yardDriver: async (fields: Fields & { driverCode?: string; pin?: string } = {}) => {
      const driverCode = fields.driverCode ?? `DRV${unique()}`;
      const pin = fields.pin ?? '1234';
      const driver = await created(
        api.post('/api/driver', {
          kind: 'yard',
          firstName: 'Jo',
          lastName: 'Driver',
          ...fields,
          driverCode,
          pin,
        }),
      );
      const login = await api.as(undefined).post('/api/auth/driver-login', { driverCode, pin });
      expect(login.status, login.text).toBe(200);
      return { id: driver.id as string, client: api.as(login.body.token) };
    },
    user: (fields: Fields = {}) =>
      created(
        api.post('/api/user', {
          username: `user-${unique()}`.toLowerCase(),
          password: 'correct-horse-battery',
          role: 'viewer',
          ...fields,
        }),
      ),
    trailer: (fields: Fields) => created(api.post('/api/trailer', fields)),
    truck: (fields: Fields) => created(api.post('/api/truck', fields)),
    task: (yardId: string, fields: Fields = {}) =>
      created(api.post('/api/yard-task', { yardId, type: 'other', ...fields })),
  };
}

export function seedRows(t: TestApp<AppDatabase>) {
  const insert = (table: SyncedTable, row: Fields): Promise<any> =>
    t.core.changes.insert(t.core.kysely, table, row as never);
  const stamps = () => ({ id: newId(), createdAt: t.core.clock.now(), updatedAt: t.core.clock.now() });
  const driverRow = (fields: Fields) =>
    insert('driver', {
      kind: 'yard',
      carrierId: null,
      firstName: 'Dana',
      lastName: 'Driver',
      phone: null,
      licenseNumber: null,
      licenseRegion: null,
      licenseExpiresOn: null,
      blockedReason: null,
      driverCode: null,
      pinHash: null,
      notes: null,
      ...stamps(),
      ...fields,
    });
  return {
    /** A yard of site-1, named `Yard <code>`; returns its id. */
    yard: async (code: string, fields: Fields = {}): Promise<string> =>
      (
        await insert('yard', {
          code,
          name: `Yard ${code}`,
          timeZone: 'America/Chicago',
          address: null,
          capacity: null,
          siteId: 'site-1',
          ...stamps(),
          ...fields,
        })
      ).id,
    location: async (yardId: string, name: string, kind = 'spot'): Promise<string> =>
      (await insert('location', { yardId, kind, name, ...stamps() })).id,
    gate: async (
      yardId: string,
      name: string,
      relay: RelayBinding | null,
      direction: 'in' | 'out' | 'both' = 'both',
    ): Promise<string> =>
      (
        await insert('gate', {
          yardId,
          name,
          direction,
          relay: relay ? JSON.stringify(relay) : null,
          ...stamps(),
        })
      ).id,
    carrier: async (name: string, fields: Fields = {}): Promise<string> =>
      (await insert('carrier', { name, ...stamps(), ...fields })).id,
    /** A driver row (a yard driver without code or PIN unless given); returns its id. */
    driver: async (fields: Fields = {}): Promise<string> => (await driverRow(fields)).id,
    /** A yard driver row with code and PIN, logged in through the drivers' login as `api` sees it. */
    loggedInDriver: async (api: Client, fields: Fields & { driverCode: string; pin: string }) => {
      const { pin, ...rest } = fields;
      const { id } = await driverRow({
        lastName: fields.driverCode,
        pinHash: await hashSecret(pin),
        ...rest,
      });
      const login = await api
        .as(undefined)
        .post('/api/auth/driver-login', { driverCode: fields.driverCode, pin });
      expect(login.status).toBe(200);
      return { id, token: login.body.token as string, client: api.as(login.body.token) };
    },
    trailer: async (fields: Fields & { carrierId: string; number: string }): Promise<string> =>
      (await insert('trailer', { ...stamps(), ...fields })).id,
  };
}
