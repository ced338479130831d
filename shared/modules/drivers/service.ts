import type { Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import {
  ConflictError,
  type FieldError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { AuthService } from '../auth/service.js';
import type { CarrierService } from '../carriers/service.js';
import { DriverRepo, type DriverRow } from './repo.js';
import {
  type CheckReasonT,
  type DriverCheckOutT,
  type DriverCreateT,
  type DriverOutT,
  type DriverPatchT,
  normalizeLicense,
  normalizePhoneQuery,
} from './schema.js';

type DriverListOpts = Parameters<DriverRepo['list']>[0] & { cursor?: string | undefined };

export type DriverDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  auth: AuthService;
  carriers: CarrierService;
};

export class DriverService {
  private readonly repo: DriverRepo;

  constructor(private readonly deps: DriverDeps) {
    this.repo = new DriverRepo(deps.kysely);
  }

  async list(opts: Omit<DriverListOpts, 'afterId'>) {
    const afterId = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const rows = await this.repo.list({ ...opts, afterId });
    return toPage(rows, opts.limit, driverOut, (r) => [r.id]);
  }

  async search(q: string, limit: number) {
    const rows = await this.repo.search({
      text: q,
      license: normalizeLicense(q),
      phone: normalizePhoneQuery(q),
      digits: q.replace(/\D/g, ''),
      limit,
    });
    // Ranked, not paged: one page of the best matches (nextCursor is always null).
    return { items: rows.map(({ score, ...row }) => ({ score, driver: driverOut(row) })), nextCursor: null };
  }

  /** A driver principal may read only its own record. */
  async getFor(principal: Principal, id: string): Promise<DriverOutT> {
    if (principal.role === 'driver' && (principal.driverId ?? principal.id) !== id) {
      throw new ForbiddenError('Drivers may only read their own record.');
    }
    return driverOut(await this.getRow(id));
  }

  async getRow(id: string): Promise<DriverRow> {
    const row = await this.repo.byId(id);
    if (!row) throw new NotFoundError('Driver', id);
    return row;
  }

  /** May this driver enter? Unknown drivers are not allowed. */
  async check(by: {
    driverId?: string;
    licenseNumber?: string;
    licenseRegion?: string;
    phone?: string;
  }): Promise<DriverCheckOutT> {
    let candidates: DriverRow[] = [];
    if (by.driverId) {
      const row = await this.repo.byId(by.driverId);
      candidates = row ? [row] : [];
    } else if (by.licenseNumber && by.licenseRegion) {
      candidates = await this.repo.byLicense(by.licenseNumber, by.licenseRegion);
    }
    if (candidates.length === 0 && by.phone) candidates = await this.repo.byPhone(by.phone);
    const driver = candidates[0];
    if (!driver) return { known: false, allowed: false, reasons: ['not-registered'] };
    const reasons = await this.refusalReasons(driver);
    return { known: true, allowed: reasons.length === 0, reasons, driver: driverOut(driver) };
  }

  async checkById(driverId: string): Promise<{ known: boolean; allowed: boolean; reasons: CheckReasonT[] }> {
    const driver = await this.repo.byId(driverId);
    if (!driver) return { known: false, allowed: false, reasons: ['not-registered'] };
    const reasons = await this.refusalReasons(driver);
    return { known: true, allowed: reasons.length === 0, reasons };
  }

  async create(input: DriverCreateT): Promise<DriverOutT> {
    const merged = {
      kind: input.kind,
      carrierId: input.carrierId ?? null,
      driverCode: input.driverCode ?? null,
      hasPin: Boolean(input.pin),
      licenseNumber: input.licenseNumber ?? null,
      licenseRegion: input.licenseRegion ?? null,
    };
    await this.assertConsistent(merged);
    const pinHash = input.pin ? await this.deps.auth.hashSecret(input.pin) : null;
    const now = this.deps.clock.now();
    const row = await this.deps.changes.insert(this.deps.kysely, 'driver', {
      id: newId(),
      kind: input.kind,
      carrierId: merged.carrierId,
      firstName: input.firstName,
      lastName: input.lastName,
      phone: input.phone ?? null,
      licenseNumber: merged.licenseNumber,
      licenseRegion: merged.licenseRegion,
      licenseExpiresOn: input.licenseExpiresOn ?? null,
      status: input.status ?? 'active',
      blockedReason: input.blockedReason ?? null,
      driverCode: merged.driverCode,
      pinHash,
      notes: input.notes ?? null,
      createdAt: now,
      updatedAt: now,
    });
    return driverOut(row);
  }

  async update(id: string, patch: DriverPatchT, expectedVersion?: number): Promise<DriverOutT> {
    const current = await this.getRow(id);
    const merged = {
      kind: patch.kind ?? current.kind,
      carrierId: patch.carrierId !== undefined ? patch.carrierId : current.carrierId,
      driverCode: patch.driverCode !== undefined ? patch.driverCode : current.driverCode,
      hasPin: patch.pin !== undefined ? Boolean(patch.pin) : current.pinHash !== null,
      licenseNumber: patch.licenseNumber !== undefined ? patch.licenseNumber : current.licenseNumber,
      licenseRegion: patch.licenseRegion !== undefined ? patch.licenseRegion : current.licenseRegion,
    };
    await this.assertConsistent(merged, id);
    const pinHash = patch.pin ? await this.deps.auth.hashSecret(patch.pin) : patch.pin;
    const { pin: _pin, ...fields } = patch;
    const unblocked = patch.status === 'active' && patch.blockedReason === undefined;
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'driver',
      id,
      {
        ...fields,
        ...(unblocked ? { blockedReason: null } : {}),
        ...(pinHash !== undefined ? { pinHash } : {}),
      },
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    if (!row) throw new NotFoundError('Driver', id);
    // A block, a new PIN or a new code ends every session the driver has open.
    const signOut =
      (row.status === 'blocked' && current.status !== 'blocked') ||
      patch.pin !== undefined ||
      row.driverCode !== current.driverCode;
    if (signOut) await this.deps.auth.revokeSessionsOf('driver', id);
    return driverOut(row);
  }

  /** DELETE blocks: the record stays for movements and audits; the driver is signed out. */
  async block(id: string, reason: string | undefined, expectedVersion?: number): Promise<DriverOutT> {
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'driver',
      id,
      // Without a reason, a driver blocked earlier keeps the reason given then.
      { status: 'blocked', ...(reason !== undefined ? { blockedReason: reason } : {}) },
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    if (!row) throw new NotFoundError('Driver', id);
    await this.deps.auth.revokeSessionsOf('driver', id);
    return driverOut(row);
  }

  private async refusalReasons(driver: DriverRow): Promise<CheckReasonT[]> {
    const reasons: CheckReasonT[] = [];
    if (driver.status === 'blocked') reasons.push('driver-blocked');
    if (driver.licenseExpiresOn && driver.licenseExpiresOn < this.todayUtc()) reasons.push('license-expired');
    if (driver.carrierId) {
      const carrier = await this.repo.carrierStatus(driver.carrierId);
      if (carrier?.status === 'blocked') reasons.push('carrier-blocked');
    }
    return reasons;
  }

  /**
   * "Today" for licence expiry is the UTC date of the clock: a driver record belongs to no yard,
   * so there is no yard time zone to use. A licence is valid through its expiry date.
   */
  private todayUtc(): string {
    return toIso(this.deps.clock.now()).slice(0, 10);
  }

  /** The rules that span fields, checked on the record as it would be after the write. */
  private async assertConsistent(
    d: {
      kind: DriverRow['kind'];
      carrierId: string | null;
      driverCode: string | null;
      hasPin: boolean;
      licenseNumber: string | null;
      licenseRegion: string | null;
    },
    exceptId?: string,
  ): Promise<void> {
    const errors: FieldError[] = [];
    if (d.kind === 'carrier' && !d.carrierId)
      errors.push({ path: 'body.carrierId', message: 'A carrier’s driver needs a carrier.' });
    if (d.kind === 'yard' && d.carrierId)
      errors.push({ path: 'body.carrierId', message: 'A yard driver belongs to no carrier.' });
    if (d.kind === 'carrier' && d.driverCode)
      errors.push({ path: 'body.driverCode', message: 'Only yard drivers have a driver code.' });
    if (d.kind === 'carrier' && d.hasPin)
      errors.push({ path: 'body.pin', message: 'Only yard drivers have a PIN.' });
    if (d.kind === 'yard' && d.hasPin && !d.driverCode)
      errors.push({ path: 'body.driverCode', message: 'A PIN needs a driver code to log in with.' });
    if ((d.licenseNumber === null) !== (d.licenseRegion === null))
      errors.push({
        path: d.licenseNumber === null ? 'body.licenseNumber' : 'body.licenseRegion',
        message: 'Give the licence region with the licence number (or neither).',
      });
    if (errors.length > 0) throw new ValidationError(errors);

    if (d.carrierId) await this.deps.carriers.getRow(d.carrierId);
    if (d.driverCode) {
      const holder = await this.repo.byCode(d.driverCode);
      if (holder && holder.id !== exceptId)
        throw new ConflictError('duplicate', `Driver code ${d.driverCode} is taken.`, {
          existingId: holder.id,
        });
    }
    if (d.licenseNumber && d.licenseRegion) {
      const holder = (await this.repo.byLicense(d.licenseNumber, d.licenseRegion)).find(
        (r) => r.id !== exceptId,
      );
      if (holder)
        throw new ConflictError(
          'duplicate',
          `Licence ${d.licenseNumber} (${d.licenseRegion}) is already registered to a driver.`,
          { existingId: holder.id },
        );
    }
  }
}

export function driverOut(row: DriverRow): DriverOutT {
  return {
    id: row.id,
    kind: row.kind,
    carrierId: row.carrierId,
    firstName: row.firstName,
    lastName: row.lastName,
    phone: row.phone,
    licenseNumber: row.licenseNumber,
    licenseRegion: row.licenseRegion,
    licenseExpiresOn: row.licenseExpiresOn,
    status: row.status,
    blockedReason: row.blockedReason,
    driverCode: row.driverCode,
    hasPin: row.pinHash !== null,
    notes: row.notes,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}
