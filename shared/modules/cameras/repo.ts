import type { Selectable } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import type { CameraTable } from '../../db/tables.js';

export type CameraRow = Selectable<CameraTable>;

export class CameraRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<CameraRow | undefined> {
    return this.db.selectFrom('camera').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byIds(ids: readonly string[]): Promise<CameraRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('camera').selectAll().where('id', 'in', ids).execute();
  }

  /**
   * The yard's camera with this name, case folded as the unique index camera_yard_name folds it:
   * by the database's lower() on both sides (ASCII letters only, on SQLite and on PostgreSQL's "C"
   * text), not JavaScript's, which also folds Ä to ä, so a duplicate the index refuses is found here
   * first and answered 409 `duplicate` on either database.
   */
  byName(yardId: string, name: string): Promise<CameraRow | undefined> {
    return this.db
      .selectFrom('camera')
      .selectAll()
      .where('yardId', '=', yardId)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', eb.fn('lower', [eb.val(name)])))
      .executeTakeFirst();
  }

  ofGate(gateId: string): Promise<CameraRow[]> {
    return this.db.selectFrom('camera').selectAll().where('gateId', '=', gateId).orderBy('id').execute();
  }

  byXaddr(xaddrs: readonly string[]) {
    if (xaddrs.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('camera')
      .select(['id', 'onvifXaddr'])
      .where('onvifXaddr', 'in', xaddrs)
      .execute();
  }

  list(opts: {
    limit: number;
    afterId?: string | undefined;
    yardIds?: string[] | undefined;
    gateId?: string | undefined;
    source?: CameraRow['source'] | undefined;
  }) {
    let q = this.db
      .selectFrom('camera')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.afterId) q = q.where('id', '>', opts.afterId);
    if (opts.yardIds) q = q.where('yardId', 'in', scopeInList(opts.yardIds));
    if (opts.gateId) q = q.where('gateId', '=', opts.gateId);
    if (opts.source) q = q.where('source', '=', opts.source);
    return q.execute();
  }

  gate(id: string) {
    return this.db
      .selectFrom('gate')
      .select(['id', 'yardId', 'name', 'cameraIds'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  yard(id: string) {
    return this.db.selectFrom('yard').select('id').where('id', '=', id).executeTakeFirst();
  }
}
