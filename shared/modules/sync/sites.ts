import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { Kdb } from '../../db/database.js';
import type { SiteTable } from '../../db/tables.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { standaloneMark } from '../../sync/adoption.js';
import { hashMosquittoPassword, verifyMosquittoPassword } from '../../sync/mosquitto-password.js';

/**
 * A site as the cloud knows it; the MQTT password hash never leaves this repository. Its gates'
 * states are the sync status's (cloud/sync/site-rows.ts).
 */
export type SiteRecord = Omit<Selectable<SiteTable>, 'mqttPasswordHash' | 'reportedGates'>;

/** Same rule as config.siteId: the id is also the site's MQTT username and a topic level. */
export const siteIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only, 1-64');
export const siteNameSchema = z.string().trim().min(1).max(200);
export const sitePasswordSchema = z.string().min(8, 'at least 8 characters').max(256);

const createSiteSchema = z.object({
  id: siteIdSchema,
  name: siteNameSchema,
  password: sitePasswordSchema,
});

export type CreateSite = z.input<typeof createSiteSchema>;

const PUBLIC_COLUMNS = [
  'id',
  'name',
  'createdAt',
  'linkState',
  'linkChangedAt',
  'lastSeenAt',
  'reportedQueued',
  'reportedSchemaV',
  'reportedVersion',
  'clockSkewMs',
] as const;

/**
 * The cloud's register of sites (edges) and their MQTT credentials. The `site` table is cloud-local:
 * it is not a synced entity, so writes go straight to the table, not through ChangeCapture.
 */
export class SiteRepo {
  private readonly reservedIds: Set<string>;
  private readonly now: () => number;

  constructor(
    private readonly db: Kdb,
    /** `reservedIds`: usernames that are not sites (the cloud's MQTT user, 'cloud' by default). */
    options: { reservedIds?: readonly string[]; now?: () => number } = {},
  ) {
    this.reservedIds = new Set(options.reservedIds ?? ['cloud']);
    this.now = options.now ?? Date.now;
  }

  list(): Promise<SiteRecord[]> {
    return this.db.selectFrom('site').select(PUBLIC_COLUMNS).orderBy('id').execute();
  }

  get(id: string): Promise<SiteRecord | undefined> {
    return this.db.selectFrom('site').select(PUBLIC_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** Registers a site; 409 `site-exists` when the id is taken, 400 for a bad id, name or password. */
  async create(input: CreateSite): Promise<SiteRecord> {
    const site = parseOrThrow(createSiteSchema, input);
    if (this.reservedIds.has(site.id)) {
      throw new ValidationError(
        [{ path: 'id', message: `"${site.id}" is the cloud's MQTT username`, code: 'reserved' }],
        `Site id "${site.id}" is reserved: it is the cloud's MQTT username.`,
      );
    }
    if (await this.exists(site.id)) {
      throw new ConflictError('site-exists', `Site ${site.id} already exists.`, { siteId: site.id });
    }
    await this.db
      .insertInto('site')
      .values({
        id: site.id,
        name: site.name,
        mqttPasswordHash: hashMosquittoPassword(site.password),
        createdAt: this.now(),
      })
      .execute();
    return (await this.get(site.id))!;
  }

  /**
   * Records that the site's edge ran standalone before it was linked: only then may an admin adopt
   * its own yards, locations and carriers (shared/sync/adoption.ts). A site provisioned without it
   * was linked from the start and has nothing of its own to adopt.
   */
  async markStandalone(id: string): Promise<void> {
    if (!(await this.exists(id))) throw new NotFoundError('Site', id);
    await this.db
      .insertInto('syncMeta')
      .values({ name: standaloneMark(id), value: String(this.now()) })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }

  /** Whether provisioning recorded that the site's edge ran standalone before it was linked. */
  async wasStandalone(id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('syncMeta')
      .select('value')
      .where('name', '=', standaloneMark(id))
      .executeTakeFirst();
    return row !== undefined;
  }

  /** False for an unknown site or a wrong password (never says which). */
  async verifyPassword(id: string, password: string): Promise<boolean> {
    const hash = await this.passwordHash(id);
    return hash !== undefined && verifyMosquittoPassword(password, hash);
  }

  /** Replaces the site's MQTT password (rotation); 404 for an unknown site. */
  async setPassword(id: string, password: string): Promise<void> {
    const secret = parseOrThrow(sitePasswordSchema, password, 'password');
    const result = await this.db
      .updateTable('site')
      .set({ mqttPasswordHash: hashMosquittoPassword(secret) })
      .where('id', '=', id)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new NotFoundError('Site', id);
  }

  /** The stored `$7$` hash (for writing a Mosquitto password file line). */
  async passwordHash(id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('site')
      .select('mqttPasswordHash')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.mqttPasswordHash;
  }

  private async exists(id: string): Promise<boolean> {
    const row = await this.db.selectFrom('site').select('id').where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }
}

function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown, root?: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      path: [root, ...issue.path.map(String)].filter(Boolean).join('.'),
      message: issue.message,
      code: issue.code,
    })),
  );
}
