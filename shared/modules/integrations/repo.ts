import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { IntegrationTable } from '../../db/tables.js';

export type IntegrationRow = Selectable<IntegrationTable>;

export class IntegrationRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<IntegrationRow | undefined> {
    return this.db.selectFrom('integration').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byName(name: string): Promise<IntegrationRow | undefined> {
    return this.db
      .selectFrom('integration')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
      .executeTakeFirst();
  }

  list(opts: {
    limit: number;
    afterId?: string | undefined;
    kind?: string | undefined;
    enabled?: boolean | undefined;
  }) {
    let q = this.db
      .selectFrom('integration')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.afterId) q = q.where('id', '>', opts.afterId);
    if (opts.kind) q = q.where('kind', '=', opts.kind);
    if (opts.enabled !== undefined) q = q.where('enabled', '=', opts.enabled ? 1 : 0);
    return q.execute();
  }

  /** Every integration by name, without configs (for pickers that must not see secrets). */
  summaries() {
    return this.db
      .selectFrom('integration')
      .select(['id', 'name', 'kind', 'enabled'])
      .orderBy('name')
      .execute();
  }

  enabled(): Promise<IntegrationRow[]> {
    return this.db.selectFrom('integration').selectAll().where('enabled', '=', 1).orderBy('name').execute();
  }

  async cameraCount(integrationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('camera')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('integrationId', '=', integrationId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Registered yard cameras per provider camera id of this integration, with their yards. */
  registeredCameras(integrationId: string) {
    return this.db
      .selectFrom('camera')
      .select(['id', 'yardId', 'providerCameraId'])
      .where('integrationId', '=', integrationId)
      .execute();
  }
}
