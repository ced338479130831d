import { expect } from 'vitest';
import type { TaskStatus } from '../../../shared/db/tables.js';
import { newId } from '../../../shared/ids.js';
import { seed } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import type { TestApp } from '../../helpers/test-app.js';

/** Shared setup of the drivers'-side tests: yards, yard drivers logged in through the real route, tasks. */
export class DriverAppWorld {
  readonly admin: Client;

  constructor(readonly t: TestApp) {
    this.admin = new Client(t.url, t.adminToken);
  }

  async yard(): Promise<string> {
    return (await seed(this.admin).yard({ timeZone: 'Europe/Lisbon' })).id;
  }

  async location(yardId: string, name?: string): Promise<string> {
    return (await seed(this.admin).location(yardId, name ? { name } : {})).id;
  }

  /** A yard driver with code and PIN, and a client logged in as them. */
  driver(firstName = 'Jo'): Promise<{ id: string; client: Client }> {
    return seed(this.admin).yardDriver({ firstName, lastName: 'Jockey', pin: '2468' });
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
