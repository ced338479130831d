import type { Principal } from '../../auth/principal.js';
import { assertCanSeeYard } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { BadRequestError, NotFoundError, ValidationError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { AttachmentService } from '../attachments/service.js';
import type { YardService } from '../yards/service.js';
import type { InspectionRow, TruckRepo } from './repo.js';
import type { InspectionCreateT, InspectionItemT, InspectionOutT } from './schema.js';
import { canSeeUnit } from './yard-scope.js';

// Clocks of handhelds drift; an inspection a little in the future is accepted, a day ahead is a typo.
const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

export type TruckInspectionDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  yards: YardService;
  /** Whether the listed attachments may be this inspection's evidence (their yard, their uploader). */
  attachments: Pick<AttachmentService, 'assertEvidenceFor'>;
};

/** Truck inspections: recorded at the edge, never changed afterwards. */
export class TruckInspections {
  constructor(
    private readonly deps: TruckInspectionDeps,
    private readonly repo: TruckRepo,
  ) {}

  async list(principal: Principal, truckId: string, opts: { limit: number; cursor?: string | undefined }) {
    await this.visibleTruck(principal, truckId);
    let after: { inspectedAt: number; id: string } | undefined;
    if (opts.cursor) {
      const [inspectedAt, id] = decodeCursor(opts.cursor, 2);
      if (typeof inspectedAt !== 'number' || typeof id !== 'string') {
        throw new BadRequestError('invalid-cursor', 'The cursor is not one this API issued for this list.');
      }
      after = { inspectedAt, id };
    }
    const rows = await this.repo.inspections({
      truckId,
      limit: opts.limit,
      after,
      yardIds: principal.yardIds,
    });
    return toPage(rows, opts.limit, inspectionOut, (r) => [r.inspectedAt, r.id]);
  }

  async last(principal: Principal, truckId: string): Promise<InspectionOutT> {
    await this.visibleTruck(principal, truckId);
    const [latest] = await this.repo.inspections({ truckId, limit: 1, yardIds: principal.yardIds });
    if (!latest) throw new NotFoundError(`Inspection of truck ${truckId}`);
    return inspectionOut(latest);
  }

  async create(principal: Principal, truckId: string, input: InspectionCreateT): Promise<InspectionOutT> {
    await this.visibleTruck(principal, truckId);
    const now = this.deps.clock.now();
    const inspectedAt = input.inspectedAt ?? now;
    const errors = duplicateCodes(input.items);
    if (inspectedAt > now + FUTURE_TOLERANCE_MS)
      errors.push({ path: 'body.inspectedAt', message: 'must not be in the future' });
    if (errors.length > 0) throw new ValidationError(errors);
    assertCanSeeYard(principal, input.yardId);
    await this.deps.yards.getRow(input.yardId);
    const attachmentIds = [...new Set(input.attachmentIds ?? [])];
    await this.deps.attachments.assertEvidenceFor(input.yardId, attachmentIds, principal);

    const row = await this.deps.changes.insert(this.deps.kysely, 'truckInspection', {
      id: newId(),
      truckId,
      yardId: input.yardId,
      inspectedAt,
      inspectorId: principal.id,
      result: input.result,
      items: JSON.stringify(input.items),
      odometer: input.odometer ?? null,
      attachmentIds: JSON.stringify(attachmentIds),
      notes: input.notes ?? null,
      createdAt: now,
    });
    return inspectionOut(row);
  }

  private async visibleTruck(principal: Principal, truckId: string): Promise<void> {
    const truck = await this.repo.byId(truckId);
    if (!truck || !canSeeUnit(principal, truck.yardId)) throw new NotFoundError('Truck', truckId);
  }
}

function duplicateCodes(items: InspectionItemT[]): Array<{ path: string; message: string }> {
  const seen = new Set<string>();
  const errors: Array<{ path: string; message: string }> = [];
  items.forEach((item, i) => {
    if (seen.has(item.code)) errors.push({ path: `body.items[${i}].code`, message: 'code appears twice' });
    seen.add(item.code);
  });
  return errors;
}

export function inspectionOut(row: InspectionRow): InspectionOutT {
  return {
    id: row.id,
    truckId: row.truckId,
    yardId: row.yardId,
    inspectedAt: toIso(row.inspectedAt),
    inspectorId: row.inspectorId,
    result: row.result,
    items: JSON.parse(row.items) as InspectionItemT[],
    odometer: row.odometer,
    attachmentIds: JSON.parse(row.attachmentIds) as string[],
    notes: row.notes,
    createdAt: toIso(row.createdAt),
  };
}
