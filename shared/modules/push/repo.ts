import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { PushTokenTable } from '../../db/tables.js';

export type PushTokenRow = Selectable<PushTokenTable>;

/** Reads of push tokens. Writes go through core.changes (push_token is synced). */
export class PushTokenRepo {
  constructor(private readonly db: Kdb) {}

  ofDriver(driverId: string): Promise<PushTokenRow[]> {
    return this.db
      .selectFrom('pushToken')
      .selectAll()
      .where('driverId', '=', driverId)
      .orderBy('id')
      .execute();
  }

  ofDevice(driverId: string, deviceId: string): Promise<PushTokenRow | undefined> {
    return this.db
      .selectFrom('pushToken')
      .selectAll()
      .where('driverId', '=', driverId)
      .where('deviceId', '=', deviceId)
      .executeTakeFirst();
  }

  withToken(token: string): Promise<PushTokenRow[]> {
    return this.db.selectFrom('pushToken').selectAll().where('token', '=', token).execute();
  }

  byId(id: string): Promise<PushTokenRow | undefined> {
    return this.db.selectFrom('pushToken').selectAll().where('id', '=', id).executeTakeFirst();
  }
}
