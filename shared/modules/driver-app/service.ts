import { assertCanSeeYard, type Principal } from '../../auth/principal.js';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { ConflictError, ValidationError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { SettingsService } from '../settings/service.js';
import type { TaskService } from '../tasks/service.js';
import type { YardService } from '../yards/service.js';
import { driverIdOf } from './acting-driver.js';
import { DriverSessionRepo, type DriverSessionRow } from './repo.js';
import { pruneOldLocations } from './retention.js';
import {
  CLOCK_TOLERANCE_MS,
  type DriverSessionOutT,
  type LastCheckBodyT,
  type LocationsBodyT,
} from './schema.js';

const HOUR_MS = 60 * 60 * 1000;

export type { DriverSessionRow };

/** `db`: sessions through its Kysely, location retention straight through SQLite (retention.ts). */
export type DriverAppDeps = Pick<CoreParts, 'db' | 'clock' | 'changes' | 'bus' | 'log'> & {
  yards: Pick<YardService, 'getRow'>;
  settings: Pick<SettingsService, 'get'>;
  tasks: Pick<TaskService, 'dispatch'>;
};

/**
 * The drivers' side of yard tasking: sessions, location pings, heartbeats. A driver acts only
 * for itself: the driver id always comes from the principal, never from the request.
 */
export class DriverAppService {
  readonly repo: DriverSessionRepo;
  private retentionTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: DriverAppDeps) {
    this.repo = new DriverSessionRepo(deps.db.kysely);
  }

  /** The driver's open session (endedAt null), if any. */
  activeSession(driverId: string): Promise<DriverSessionRow | undefined> {
    return this.repo.openOf(driverId);
  }

  /** Starts a session in the yard; an open session of the driver ends with reason `replaced`. */
  async startSession(
    principal: Principal,
    input: { yardId: string; deviceId?: string | undefined },
  ): Promise<DriverSessionOutT> {
    const driverId = driverIdOf(principal);
    this.assertSessionsHere();
    await this.deps.yards.getRow(input.yardId);
    assertCanSeeYard(principal, input.yardId);
    const now = this.deps.clock.now();
    const { replaced, started } = await this.deps.db.kysely.transaction().execute(async (trx) => {
      const replaced: DriverSessionRow[] = [];
      for (const open of await new DriverSessionRepo(trx).allOpenOf(driverId)) {
        const ended = await this.deps.changes.update(trx, 'driverSession', open.id, {
          endedAt: now,
          endReason: 'replaced',
        });
        if (ended) replaced.push(ended);
      }
      const started = await this.deps.changes.insert(trx, 'driverSession', {
        id: newId(),
        driverId,
        yardId: input.yardId,
        deviceId: input.deviceId ?? null,
        startedAt: now,
        endedAt: null,
        endReason: null,
        lastCheckAt: null,
        lastLat: null,
        lastLon: null,
        lastLocationAt: null,
        createdAt: now,
        updatedAt: now,
      });
      return { replaced, started };
    });
    for (const ended of replaced) this.publish('driver.session.ended', ended);
    this.publish('driver.session.started', started);
    const yards = new Set([...replaced.map((s) => s.yardId), started.yardId]);
    for (const yardId of yards) await this.dispatch(yardId);
    return sessionOut(started);
  }

  async endSession(principal: Principal, reason?: string): Promise<DriverSessionOutT> {
    const driverId = driverIdOf(principal);
    this.assertSessionsHere();
    const ended = await this.deps.db.kysely.transaction().execute(async (trx) => {
      const open = await this.openOrConflict(trx, driverId);
      return this.deps.changes.update(trx, 'driverSession', open.id, {
        endedAt: this.deps.clock.now(),
        endReason: reason ?? 'ended',
      });
    });
    if (!ended) throw new Error('driver session vanished inside its own transaction');
    this.publish('driver.session.ended', ended);
    await this.dispatch(ended.yardId);
    return sessionOut(ended);
  }

  /**
   * Stores a batch of pings in one transaction and moves the session's last location. A device
   * that sends pings is alive, so this also counts as a heartbeat.
   */
  async addLocations(principal: Principal, input: LocationsBodyT) {
    const driverId = driverIdOf(principal);
    this.assertSessionsHere();
    const now = this.deps.clock.now();
    const { open, session } = await this.deps.db.kysely.transaction().execute(async (trx) => {
      const open = await this.openOrConflict(trx, driverId);
      assertInsideSession(input.points, open.startedAt, now);
      await this.deps.changes.insertMany(
        trx,
        'sessionLocation',
        input.points.map((p) => ({
          id: newId(),
          sessionId: open.id,
          at: p.at,
          lat: p.lat,
          lon: p.lon,
          accuracyM: p.accuracyM ?? null,
          speed: p.speed ?? null,
          heading: p.heading ?? null,
          createdAt: now,
        })),
      );
      const newest = input.points.reduce((a, b) => (b.at > a.at ? b : a));
      const moved = open.lastLocationAt === null || newest.at >= open.lastLocationAt;
      const session = await this.deps.changes.update(trx, 'driverSession', open.id, {
        lastCheckAt: now,
        ...(moved ? { lastLat: newest.lat, lastLon: newest.lon, lastLocationAt: newest.at } : {}),
      });
      return { open, session: session ?? open };
    });
    if (await this.wasOffline(open, now)) await this.dispatch(session.yardId);
    return { accepted: input.points.length, session: sessionOut(session) };
  }

  /** Device heartbeat: keeps the driver from counting as offline. */
  async lastCheck(principal: Principal, input: LastCheckBodyT) {
    const driverId = driverIdOf(principal);
    this.assertSessionsHere();
    const now = this.deps.clock.now();
    const { open, session } = await this.deps.db.kysely.transaction().execute(async (trx) => {
      const open = await this.openOrConflict(trx, driverId);
      const session = await this.deps.changes.update(trx, 'driverSession', open.id, {
        lastCheckAt: now,
        ...(input?.lat !== undefined && input.lon !== undefined
          ? { lastLat: input.lat, lastLon: input.lon, lastLocationAt: now }
          : {}),
      });
      return { open, session: session ?? open };
    });
    if (input?.battery !== undefined) {
      this.deps.bus.publish({
        type: 'driver.last-check',
        yardId: session.yardId,
        driverId,
        data: { sessionId: session.id, battery: input.battery, at: toIso(now) },
      });
    }
    if (await this.wasOffline(open, now)) await this.dispatch(session.yardId);
    return { serverTime: toIso(now), session: sessionOut(session) };
  }

  /** Deletes location pings older than setting locations.retentionDays; answers how many. */
  async pruneLocations(): Promise<number> {
    const days = await this.deps.settings.get('locations.retentionDays');
    return pruneOldLocations(this.deps.db, this.deps.clock.now(), days);
  }

  /** Starts hourly location retention (and prunes once now: the box may have been off a while). */
  start(): void {
    if (this.retentionTimer) return;
    const prune = () => {
      this.pruneLocations().then(
        (n) => n > 0 && this.deps.log.info({ deleted: n }, 'pruned old driver locations'),
        (err: unknown) => this.deps.log.error({ err }, 'pruning driver locations failed'),
      );
    };
    prune();
    this.retentionTimer = setInterval(prune, HOUR_MS);
    this.retentionTimer.unref();
  }

  stop(): void {
    clearInterval(this.retentionTimer);
    this.retentionTimer = undefined;
  }

  /**
   * Driver sessions, pings and heartbeats are the edge's (the drivers' phones talk to the yard's
   * edge): the cloud answers 409 edge-owned before looking for a session (else a driver would be
   * told to start a session that the cloud cannot start either).
   */
  private assertSessionsHere(): void {
    this.deps.changes.assertMayWrite('driverSession');
  }

  private async openOrConflict(db: Kdb, driverId: string): Promise<DriverSessionRow> {
    const open = await new DriverSessionRepo(db).openOf(driverId);
    if (!open) {
      throw new ConflictError(
        'no-active-session',
        'Start a session first (POST /api/yard-task/driver/session/start).',
      );
    }
    return open;
  }

  /** Whether the session counted as offline (heartbeat timeout) before this contact: then it is back. */
  private async wasOffline(session: DriverSessionRow, now: number): Promise<boolean> {
    const timeoutSec = await this.deps.settings.get('tasks.driverTimeoutSec');
    return now - (session.lastCheckAt ?? session.startedAt) > timeoutSec * 1000;
  }

  /** A driver became available or went away: let auto-dispatch react. The session change stands regardless. */
  private async dispatch(yardId: string): Promise<void> {
    try {
      await this.deps.tasks.dispatch(yardId);
    } catch (err) {
      this.deps.log.error({ err, yardId }, 'dispatch after a session change failed');
    }
  }

  private publish(type: 'driver.session.started' | 'driver.session.ended', session: DriverSessionRow): void {
    this.deps.bus.publish({
      type,
      yardId: session.yardId,
      driverId: session.driverId,
      data: sessionOut(session),
    });
  }
}

function assertInsideSession(points: ReadonlyArray<{ at: number }>, startedAt: number, now: number): void {
  const from = startedAt - CLOCK_TOLERANCE_MS;
  const to = now + CLOCK_TOLERANCE_MS;
  const bad = points.flatMap((p, i) => (p.at < from || p.at > to ? [i] : []));
  if (bad.length === 0) return;
  throw new ValidationError(
    bad.map((i) => ({
      path: `body.points[${i}].at`,
      message: `must lie within the active session (${toIso(startedAt)} to now), give or take ${CLOCK_TOLERANCE_MS / 1000} s`,
      code: 'outside-session',
    })),
    `Points ${bad.join(', ')} lie outside the active session.`,
  );
}

export function sessionOut(row: DriverSessionRow): DriverSessionOutT {
  return {
    id: row.id,
    driverId: row.driverId,
    yardId: row.yardId,
    deviceId: row.deviceId,
    startedAt: toIso(row.startedAt),
    endedAt: toIsoOrNull(row.endedAt),
    endReason: row.endReason,
    lastCheckAt: toIsoOrNull(row.lastCheckAt),
    lastLocation:
      row.lastLat !== null && row.lastLon !== null && row.lastLocationAt !== null
        ? { lat: row.lastLat, lon: row.lastLon, at: toIso(row.lastLocationAt) }
        : null,
    active: row.endedAt === null,
    version: row.version,
  };
}
