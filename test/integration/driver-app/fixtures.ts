import { expect } from 'vitest';
import type { TaskStatus } from '../../../shared/db/tables.js';
import { newId } from '../../../shared/ids.js';
import { Client } from '../../helpers/http.js';
import type { TestApp } from '../../helpers/test-app.js';

/** Shared setup of the drivers'-side tests: yards, yard drivers logged in through the real route, tasks. */
export class DriverAppWorld {
  private seq = 0;
  readonly admin: Client;

  constructor(readonly t: TestApp) {
    this.admin = new Client(t.url, t.adminToken);
  }

  async yard(): Promise<string> {
    const n = ++this.seq;
    const res = await this.admin.post('/api/yard', {
      code: `Y${n}`,
      name: `Yard ${n}`,
      timeZone: 'Europe/Lisbon',
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }

  async location(yardId: string, name = `S${++this.seq}`): Promise<string> {
    const res = await this.admin.post(`/api/yard/${yardId}/location`, { kind: 'spot', name });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }

  /** A yard driver with code and PIN, and a client logged in as them. */
  async driver(firstName = 'Jo'): Promise<{ id: string; client: Client }> {
    const code = `DRV${++this.seq}`;
    const created = await this.admin.post('/api/driver', {
      kind: 'yard',
      firstName,
      lastName: 'Jockey',
      driverCode: code,
      pin: '2468',
    });
    expect(created.status, created.text).toBe(201);
    const login = await this.admin
      .as(undefined)
      .post('/api/auth/driver-login', { driverCode: code, pin: '2468' });
    expect(login.status, login.text).toBe(200);
    return { id: created.body.id, client: this.admin.as(login.body.token) };
  }

  /** A task written straight to the database (the dispatcher's side is not what these tests cover). */
  async task(
    yardId: string,
    fields: {
      status?: TaskStatus;
      driverId?: string | null;
      priority?: number;
      type?: 'move' | 'other';
    } = {},
  ): Promise<string> {
    const now = this.t.core.clock.now();
    const id = newId();
    await this.t.core.changes.insert(this.t.core.kysely, 'yardTask', {
      id,
      yardId,
      type: fields.type ?? 'other',
      trailerId: null,
      fromLocationId: null,
      toLocationId: null,
      priority: fields.priority ?? 1,
      status: fields.status ?? 'ASSIGNED',
      driverId: fields.driverId ?? null,
      notes: null,
      dueAt: null,
      createdBy: null,
      createdAt: now,
      updatedAt: now,
      assignedAt: fields.driverId ? now : null,
      startedAt: null,
      completedAt: null,
      cancelledAt: null,
      cancelReason: null,
      billedCarrierId: null,
    });
    return id;
  }

  async setting(name: string, value: unknown): Promise<void> {
    const res = await this.admin.put('/api/settings', { settings: { [name]: value } });
    expect(res.status, res.text).toBe(200);
  }
}

export const UNKNOWN_ID = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';
