import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { WebhookEndpointTable } from '../../db/tables.js';

export type EndpointRow = Selectable<WebhookEndpointTable>;

export interface EndpointHealthRow {
  endpointId: string;
  pending: number;
  failed: number;
  lastDeliveredAt: number | null;
}

/** SQL of the webhook endpoints (the deliveries' is in delivery-repo.ts). */
export class EndpointRepo {
  constructor(private readonly db: Kdb) {}

  async insert(row: Insertable<WebhookEndpointTable>): Promise<EndpointRow> {
    return this.db.insertInto('webhookEndpoint').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** One endpoint that was not removed. */
  byId(id: string): Promise<EndpointRow | undefined> {
    return this.db
      .selectFrom('webhookEndpoint')
      .selectAll()
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .executeTakeFirst();
  }

  /** Every endpoint not removed, by id (an organisation has a handful: pages are cut in memory). */
  all(): Promise<EndpointRow[]> {
    return this.db
      .selectFrom('webhookEndpoint')
      .selectAll()
      .where('deletedAt', 'is', null)
      .orderBy('id')
      .execute();
  }

  /** The change, if the endpoint is still at `version` (else undefined: changed or removed meanwhile). */
  updateAt(
    trx: Kdb,
    id: string,
    version: number,
    set: Updateable<WebhookEndpointTable>,
  ): Promise<EndpointRow | undefined> {
    return trx
      .updateTable('webhookEndpoint')
      .set({ ...set, version: version + 1 })
      .where('id', '=', id)
      .where('version', '=', version)
      .where('deletedAt', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /** Pending and failed counts and the latest delivery of each endpoint. */
  async health(endpointIds: string[]): Promise<Map<string, EndpointHealthRow>> {
    if (endpointIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('webhookDelivery')
      .select((eb) => [
        'endpointId',
        eb.fn.sum<number>(eb.case().when('status', '=', 'pending').then(1).else(0).end()).as('pending'),
        eb.fn.sum<number>(eb.case().when('status', '=', 'failed').then(1).else(0).end()).as('failed'),
        eb.fn.max('deliveredAt').as('lastDeliveredAt'),
      ])
      .where('endpointId', 'in', endpointIds)
      .groupBy('endpointId')
      .execute();
    return new Map(
      rows.map((r) => [
        r.endpointId,
        {
          endpointId: r.endpointId,
          pending: Number(r.pending ?? 0),
          failed: Number(r.failed ?? 0),
          lastDeliveredAt: r.lastDeliveredAt === null ? null : Number(r.lastDeliveredAt),
        },
      ]),
    );
  }

  /** The error of the latest attempt that failed, per endpoint. */
  async lastErrors(endpointIds: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const endpointId of endpointIds) {
      const row = await this.db
        .selectFrom('webhookDelivery')
        .select('lastError')
        .where('endpointId', '=', endpointId)
        .where('lastError', 'is not', null)
        .orderBy('eventSeq', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (row?.lastError) out.set(endpointId, row.lastError);
    }
    return out;
  }
}
