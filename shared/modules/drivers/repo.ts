import { type Selectable, sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { escapeLike, likeContains, textContains } from '../../db/sql-helpers.js';
import type { DriverTable } from '../../db/tables.js';
import type { PartyStatus } from '../../enums.js';

export type DriverRow = Selectable<DriverTable>;

/** Reads for drivers. Writes go through core.changes (ChangeCapture) in the service. */
export class DriverRepo {
  constructor(private readonly db: Kdb) {}

  byId(id: string): Promise<DriverRow | undefined> {
    return this.db.selectFrom('driver').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byCode(driverCode: string): Promise<DriverRow | undefined> {
    return this.db.selectFrom('driver').selectAll().where('driverCode', '=', driverCode).executeTakeFirst();
  }

  /** Newest first: the most recent registration decides when a licence or phone matches several. */
  byLicense(licenseNumber: string, licenseRegion: string): Promise<DriverRow[]> {
    return this.db
      .selectFrom('driver')
      .selectAll()
      .where('licenseNumber', '=', licenseNumber)
      .where('licenseRegion', '=', licenseRegion)
      .orderBy('id', 'desc')
      .execute();
  }

  byPhone(phone: string): Promise<DriverRow[]> {
    return this.db
      .selectFrom('driver')
      .selectAll()
      .where('phone', '=', phone)
      .orderBy('id', 'desc')
      .execute();
  }

  carrierStatus(carrierId: string): Promise<{ status: PartyStatus } | undefined> {
    return this.db.selectFrom('carrier').select('status').where('id', '=', carrierId).executeTakeFirst();
  }

  /** Ordered by id (creation order); keyset paging after `afterId`. */
  list(opts: {
    limit: number;
    afterId?: string | undefined;
    kind?: DriverRow['kind'] | undefined;
    carrierId?: string | undefined;
    status?: DriverRow['status'] | undefined;
    q?: string | undefined;
  }): Promise<DriverRow[]> {
    let q = this.db
      .selectFrom('driver')
      .selectAll()
      .orderBy('id')
      .limit(opts.limit + 1);
    if (opts.afterId) q = q.where('id', '>', opts.afterId);
    if (opts.kind) q = q.where('kind', '=', opts.kind);
    if (opts.carrierId) q = q.where('carrierId', '=', opts.carrierId);
    if (opts.status) q = q.where('status', '=', opts.status);
    if (opts.q) {
      const text = opts.q;
      q = q.where((eb) =>
        eb.or([
          textContains(sql<string>`${eb.ref('firstName')} || ' ' || ${eb.ref('lastName')}`, text),
          textContains(eb.ref('phone'), text),
          textContains(eb.ref('licenseNumber'), text),
        ]),
      );
    }
    return q.execute();
  }

  /**
   * Ranked search in one query: 3 = exact licence number or phone, 2 = first, last or full name
   * starts with the text, 1 = name, licence or phone contains it. Best first, then by name.
   */
  search(opts: {
    text: string;
    license: string;
    phone: string;
    digits: string;
    limit: number;
  }): Promise<Array<DriverRow & { score: number }>> {
    // The patterns are lowered in SQL, as the columns are (ASCII letters only on both databases):
    // toLowerCase would lower "Öz" to "öz", which lower("Öztürk") never contains.
    const prefix = sql<string>`lower(${`${escapeLike(opts.text)}%`})`;
    const contains = sql<string>`lower(${likeContains(opts.text)})`;
    const licenseContains = opts.license ? likeContains(opts.license) : null;
    // Digits alone only search phones when there are enough of them to mean something.
    const digitsContains = opts.digits.length >= 3 ? likeContains(opts.digits) : null;
    const score = sql<number>`case
      when license_number = ${opts.license} or phone = ${opts.phone} then 3
      when lower(first_name) like ${prefix} escape '\\' or lower(last_name) like ${prefix} escape '\\'
        or lower(first_name || ' ' || last_name) like ${prefix} escape '\\' then 2
      when lower(first_name || ' ' || last_name) like ${contains} escape '\\'
        or license_number like ${licenseContains} escape '\\'
        or phone like ${digitsContains} escape '\\' then 1
      else 0 end`;
    return this.db
      .selectFrom((eb) => eb.selectFrom('driver').selectAll().select(score.as('score')).as('ranked'))
      .selectAll()
      .where('score', '>', 0)
      .orderBy('score', 'desc')
      .orderBy('lastName')
      .orderBy('firstName')
      .orderBy('id')
      .limit(opts.limit)
      .execute() as Promise<Array<DriverRow & { score: number }>>;
  }
}
