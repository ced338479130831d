import type { Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import type { AdoptionRefusal, AdoptionRow } from '../../sync/adoption.js';
import type { SyncApplier } from '../../sync/sync-applier.js';
import { assertOrganisationWide } from '../auth/admin-scope.js';
import { SiteRepo } from './sites.js';

export type DeadLetterDeps = Pick<CoreParts, 'kysely' | 'db'> & {
  /** The change applier, made on first use (it prepares its statements once). */
  applier: () => SyncApplier;
  /** Whether records are adopted here: at the cloud, from the sites linked to it (chosen at start). */
  adoptsSiteRecords: boolean;
};

/**
 * Synced rows that failed to apply (docs/sync.md "Dead letters, retry and adoption" and "Trust"):
 * listed, retried, or adopted as the cloud's own. Every site's rows: an admin without a yard scope only.
 */
export class DeadLetterService {
  constructor(private readonly deps: DeadLetterDeps) {}

  async list(
    principal: Principal,
    query: { limit: number; cursor?: string | undefined; peer?: string | undefined },
  ) {
    assertOrganisationWide(principal, "Dead letters (rows of every site's yards, as they were sent)");
    const afterId = query.cursor ? Number(decodeCursor(query.cursor, 1)[0]) : 0;
    let q = this.deps.kysely.selectFrom('deadLetter').selectAll().where('id', '>', afterId);
    if (query.peer) q = q.where('peer', '=', query.peer);
    const rows = await q
      .orderBy('id')
      .limit(query.limit + 1)
      .execute();
    return toPage(
      rows,
      query.limit,
      (row) => ({
        id: row.id,
        peer: row.peer,
        seq: row.seq,
        entity: row.entity,
        entityId: row.entityId,
        error: row.error,
        data: parseJson(row.data),
        at: toIso(row.at),
      }),
      (row) => [row.id],
    );
  }

  /** Applies dead letters again (all, one peer's, or some ids); the ones that apply are removed. */
  async retry(principal: Principal, filter: { peer?: string | undefined; ids?: number[] | undefined }) {
    assertOrganisationWide(principal, 'Dead letters (rows of every site)');
    const applier = this.deps.applier();
    const only = {
      ...(filter.peer ? { peer: filter.peer } : {}),
      ...(filter.ids ? { ids: filter.ids } : {}),
    };
    return applier.retryDeadLetters(only);
  }

  /**
   * What adopting the site's refused master data would take, per kind (adoption.ts): the rows an
   * admin may adopt and, for the others, why never.
   */
  async previewAdoption(principal: Principal, siteId: string) {
    const applier = await this.adoptionAt(principal, siteId);
    const plan = await applier.previewAdoption(siteId);
    type Shown = Omit<AdoptionRow, 'entity' | 'refusal'>;
    const kinds = new Map<
      string,
      { entity: string; adoptable: Shown[]; refused: Array<Shown & AdoptionRefusal> }
    >();
    for (const row of plan.rows) {
      const kind = kinds.get(row.entity) ?? { entity: row.entity, adoptable: [], refused: [] };
      kinds.set(row.entity, kind);
      const shown = { deadLetterId: row.deadLetterId, id: row.id, op: row.op, fields: row.fields };
      if (row.refusal) kind.refused.push({ ...shown, ...row.refusal });
      else kind.adoptable.push(shown);
    }
    return { siteId, wasStandalone: plan.wasStandalone, kinds: [...kinds.values()] };
  }

  /** Adopts rows the preview lists as adoptable as the cloud's own (409, nothing adopted, if any is not). */
  async adopt(principal: Principal, siteId: string, ids: readonly number[]) {
    const applier = await this.adoptionAt(principal, siteId);
    return applier.adoptDeadLetters(siteId, ids);
  }

  private async adoptionAt(principal: Principal, siteId: string): Promise<SyncApplier> {
    if (!this.deps.adoptsSiteRecords) {
      throw new ConflictError('not-cloud', 'Records are adopted at the cloud, from the sites linked to it.');
    }
    assertOrganisationWide(principal, "A site's adopted records");
    if (!(await new SiteRepo(this.deps.kysely).get(siteId))) throw new NotFoundError('Site', siteId);
    return this.deps.applier();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
