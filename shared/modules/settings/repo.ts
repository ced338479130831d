import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { SettingTable } from '../../db/tables.js';

export type SettingRow = Selectable<SettingTable>;

/** Reads for settings. Writes go through core.changes (table setting, key name) in the service. */
export class SettingRepo {
  constructor(private readonly db: Kdb) {}

  all(): Promise<SettingRow[]> {
    return this.db.selectFrom('setting').selectAll().orderBy('name').execute();
  }

  byName(name: string): Promise<SettingRow | undefined> {
    return this.db.selectFrom('setting').selectAll().where('name', '=', name).executeTakeFirst();
  }
}
