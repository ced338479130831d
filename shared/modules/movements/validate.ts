import { assertCanSeeYard, type Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import type { AttachmentService } from '../attachments/service.js';
import type { DriverService } from '../drivers/service.js';
import type { SettingsService } from '../settings/service.js';
import type { DriverVerdict } from './record.js';
import type { MovementCreateT } from './schema.js';

export type MovementChecksDeps = Pick<CoreParts, 'clock' | 'changes'> & {
  /** Whether the listed attachments may be this movement's evidence (their yard, their uploader). */
  attachments: Pick<AttachmentService, 'assertEvidenceFor'>;
  /** `gate.requireDriverCheck`. */
  settings: Pick<SettingsService, 'get'>;
  /** The admission rule (blocked driver or carrier, expired licence) is the drivers service's. */
  drivers: Pick<DriverService, 'checkById'>;
};

/** What the checks found, for the record step. */
export interface Checked {
  /** When the movement happened (the input's `at`, else now). */
  at: number;
  /** The driver check's verdict when the site requires it. */
  driver: DriverVerdict | undefined;
}

/**
 * The first step of a gate movement (MovementService.create): the checks that need no
 * transaction, before any camera is called or relay pulsed. The rules on the records themselves
 * (gate, units, visits) are checked inside the transaction by the record step (record.ts).
 */
export class MovementChecks {
  constructor(private readonly deps: MovementChecksDeps) {}

  async check(input: MovementCreateT, principal: Principal): Promise<Checked> {
    assertCanSeeYard(principal, input.yardId);
    // Movements are the edge's (the cloud answers 409 edge-owned): refuse before any camera is
    // called or relay pulsed, not when the movement row is written.
    this.deps.changes.assertMayWrite('movement', { yardId: input.yardId });
    await this.deps.attachments.assertEvidenceFor(input.yardId, input.attachmentIds ?? [], principal);
    const now = this.deps.clock.now();
    const at = input.at ?? now;
    assertNotInFuture(at, now);
    const driver =
      input.direction === 'in' && input.driverId ? await this.driverVerdict(input.driverId) : undefined;
    return { at, driver };
  }

  /** The driver check's verdict when the site requires it (undefined when not); 404 for an unknown driver. */
  private async driverVerdict(driverId: string): Promise<DriverVerdict | undefined> {
    const required = await this.deps.settings.get('gate.requireDriverCheck');
    if (!required) return undefined;
    const check = await this.deps.drivers.checkById(driverId);
    if (!check.known) throw new NotFoundError('Driver', driverId);
    return { allowed: check.allowed, reasons: check.reasons };
  }
}

export function assertNotInFuture(at: number, now: number): void {
  if (at > now + 5 * 60_000) {
    throw new ValidationError([
      { path: 'body.at', message: 'must not be more than 5 minutes in the future' },
    ]);
  }
}
