import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { AttachmentTable } from '../../db/tables.js';
import type { AttachmentRefTypeT } from './schema.js';

export type AttachmentRow = Selectable<AttachmentTable>;

/** A referenced record: that it exists, and the yard it belongs to (null when it has none). */
export interface RefTarget {
  yardId: string | null;
}

/** Reads for attachments. Writes go through core.changes in the service. */
export class AttachmentRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<AttachmentRow | undefined> {
    return this.db.selectFrom('attachment').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async countBySha(sha256: string): Promise<number> {
    const row = await this.db
      .selectFrom('attachment')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('sha256', '=', sha256)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async refTarget(refType: AttachmentRefTypeT, refId: string): Promise<RefTarget | undefined> {
    switch (refType) {
      case 'yard': {
        const yard = await this.db.selectFrom('yard').select('id').where('id', '=', refId).executeTakeFirst();
        return yard ? { yardId: yard.id } : undefined;
      }
      case 'driver': {
        const driver = await this.db
          .selectFrom('driver')
          .select('id')
          .where('id', '=', refId)
          .executeTakeFirst();
        return driver ? { yardId: null } : undefined;
      }
      default: {
        const table = refType === 'inspection' ? 'truckInspection' : refType;
        const row = await this.db
          .selectFrom(table)
          .select('yardId')
          .where('id', '=', refId)
          .executeTakeFirst();
        return row ? { yardId: row.yardId } : undefined;
      }
    }
  }

  /** The yards of the movements and inspections that list the attachment as their evidence. */
  async evidenceYards(id: string): Promise<string[]> {
    const pattern = `%"${id}"%`;
    const yards = new Set<string>();
    for (const table of ['movement', 'truckInspection'] as const) {
      const rows = await this.db
        .selectFrom(table)
        .select('yardId')
        .distinct()
        .where('attachmentIds', 'like', pattern)
        .execute();
      for (const r of rows) yards.add(r.yardId);
    }
    return [...yards];
  }

  /** Whether an immutable record (movement, inspection) lists the attachment as its evidence. */
  async isListedAsEvidence(id: string): Promise<boolean> {
    const pattern = `%"${id}"%`;
    for (const table of ['movement', 'truckInspection'] as const) {
      const hit = await this.db
        .selectFrom(table)
        .select('id')
        .where('attachmentIds', 'like', pattern)
        .limit(1)
        .executeTakeFirst();
      if (hit) return true;
    }
    return false;
  }
}
