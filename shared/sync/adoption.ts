import { type SqlWork, sqlRows, sqlValue, statement } from '../db/sql-work.js';
import { ConflictError } from '../http/errors.js';

/**
 * Adoption of a formerly standalone edge's own master data (docs/sync.md "Dead letters, retry and
 * adoption"). An edge that ran standalone before it was linked brings its yards, their locations
 * and its carriers; the cloud refuses them from a site (`[cloud-owned]`) and an unscoped admin
 * adopts them as the cloud's own. One home for what may be adopted: the preview, the adoption
 * itself (which re-checks every row in its transaction) and the dead letter's advice ask here.
 *
 * Never adopted, whatever the site: credentials and what decides who may do what (users, API
 * keys), settings, integrations (secrets), provider cameras, deletes, a yard naming another site
 * and a location in another site's yard. And nothing at all from a site provisioned linked: its
 * edge never ran standalone, so all its master data came from the cloud in the first place.
 */

/** The kinds a standalone edge's own master data may be adopted as, in the order they apply. */
export const ADOPTABLE_KINDS: readonly string[] = ['yard', 'location', 'carrier'];

/** Why a row is not adopted: a stable code and the admin's words. */
export interface AdoptionRefusal {
  rule: 'linked-from-start' | 'never-adopted' | 'other-site' | 'delete';
  reason: string;
}

/** One of the site's `[cloud-owned]` dead letters, as the admin sees it before adopting. */
export interface AdoptionRow {
  deadLetterId: number;
  entity: string;
  id: string;
  op: 'upsert' | 'delete';
  /** The fields that say what the record is (never a hash, a secret or a config). */
  fields: Record<string, unknown>;
  /** Absent when the row may be adopted. */
  refusal?: AdoptionRefusal;
}

export interface AdoptionPlan {
  siteId: string;
  /** Provisioning recorded that the site's edge ran standalone before it was linked. */
  wasStandalone: boolean;
  rows: AdoptionRow[];
}

/** What the preview shows of each kind: enough to recognise a record, nothing secret. */
const SHOWN: Readonly<Record<string, readonly string[]>> = {
  yard: ['code', 'name', 'siteId'],
  location: ['yardId', 'kind', 'name'],
  carrier: ['name', 'scac', 'usdot'],
  user: ['username', 'role', 'yardIds'],
  api_key: ['name', 'role', 'yardIds'],
  integration: ['kind', 'name'],
  setting: ['name', 'scope'],
  camera: ['yardId', 'name', 'source'],
};

/** sync_meta name under which provisioning records a site whose edge ran standalone before. */
export function standaloneMark(siteId: string): string {
  return `site-was-standalone:${siteId}`;
}

/**
 * Whether a row a site sent could ever be adopted from it (the kind, the op, a yard naming this
 * site): the dead letter advises adoption only then. Whether the site ran standalone, and where a
 * location's yard is, are decided when the admin looks (adoptionRefusal).
 */
export function mayBeAdopted(
  site: string,
  entity: string,
  op: string,
  data: Record<string, unknown>,
): boolean {
  return kindRefusal(site, entity, op, data) === undefined;
}

/**
 * Why this row of `site` may not be adopted, or undefined when it may. `siteOfYard`: the site a
 * yard belongs to, at the cloud or (for a yard not there yet) as this adoption's yards name it.
 */
export function adoptionRefusal(
  site: string,
  row: { entity: string; id: string; op: string; data: Record<string, unknown> },
  wasStandalone: boolean,
  siteOfYard: (yardId: unknown) => string | undefined,
): AdoptionRefusal | undefined {
  if (!wasStandalone) {
    return {
      rule: 'linked-from-start',
      reason: `Site ${site} was set up linked to the cloud: its edge never ran on its own, so it has no records of its own to adopt.`,
    };
  }
  const refusal = kindRefusal(site, row.entity, row.op, row.data);
  if (refusal) return refusal;
  // A yard the cloud already holds for another site stays that site's.
  const heldBy = row.entity === 'yard' ? siteOfYard(row.id) : undefined;
  if (heldBy !== undefined && heldBy !== site) {
    return { rule: 'other-site', reason: `The cloud already has this yard, for site ${heldBy}.` };
  }
  if (row.entity === 'location' && siteOfYard(row.data.yardId) !== site) {
    return {
      rule: 'other-site',
      reason: `This location is not in a yard of site ${site}.`,
    };
  }
  return undefined;
}

function kindRefusal(
  site: string,
  entity: string,
  op: string,
  data: Record<string, unknown>,
): AdoptionRefusal | undefined {
  if (!ADOPTABLE_KINDS.includes(entity)) {
    return {
      rule: 'never-adopted',
      reason: `${KIND_NAMES[entity] ?? 'Records of this kind'} are made at the cloud only: a site's are never adopted.`,
    };
  }
  if (op !== 'upsert') {
    return { rule: 'delete', reason: 'A site never deletes records the cloud manages.' };
  }
  if (entity === 'yard' && data.siteId !== site) {
    return {
      rule: 'other-site',
      reason: `This yard names site ${String(data.siteId)}, not ${site}: a yard is adopted only for the site it names.`,
    };
  }
  return undefined;
}

const KIND_NAMES: Readonly<Record<string, string>> = {
  user: 'Users',
  api_key: 'API keys',
  integration: 'Integrations',
  setting: 'Settings',
  camera: 'Provider cameras',
};

/**
 * The site's `[cloud-owned]` dead letters, each with its refusal if it may not be adopted (read in
 * the caller's transaction). A location may sit in a yard at the cloud, or in a yard of this
 * adoption; the cloud's yard decides when both name it.
 */
export function* planAdoption(site: string): SqlWork<AdoptionPlan> {
  const wasStandalone = (yield* sqlValue(MARK_GET, [standaloneMark(site)])) !== undefined;
  const letters = (yield* sqlRows(LETTERS, [site])) as unknown as LetterRow[];
  const parsed = letters.map((letter) => ({ letter, change: parseLetter(letter.data) }));
  const yardSites = new Map<string, string | undefined>();
  for (const { letter, change } of parsed) {
    const yardId = letter.entity === 'yard' ? letter.entity_id : change.data.yardId;
    if (typeof yardId === 'string' && !yardSites.has(yardId)) {
      const atCloud = yield* sqlValue(YARD_SITE, [yardId]);
      yardSites.set(yardId, typeof atCloud === 'string' ? atCloud : undefined);
    }
  }
  const arriving = new Map<string, string>();
  for (const { letter, change } of parsed) {
    if (letter.entity !== 'yard' || yardSites.get(letter.entity_id) !== undefined) continue;
    if (!kindRefusal(site, 'yard', change.op, change.data)) arriving.set(letter.entity_id, site);
  }
  const siteOfYard = (yardId: unknown) =>
    typeof yardId === 'string' ? (yardSites.get(yardId) ?? arriving.get(yardId)) : undefined;
  const rows = parsed.map(({ letter, change }): AdoptionRow => {
    const row = { entity: letter.entity, id: letter.entity_id, ...change };
    const refusal = adoptionRefusal(site, row, wasStandalone, siteOfYard);
    return {
      deadLetterId: Number(letter.id),
      entity: letter.entity,
      id: letter.entity_id,
      op: change.op,
      fields: Object.fromEntries((SHOWN[letter.entity] ?? []).map((f) => [f, change.data[f] ?? null])),
      ...(refusal ? { refusal } : {}),
    };
  });
  return { siteId: site, wasStandalone, rows };
}

/**
 * The rows to adopt among `ids`, in the order they apply (yards, then locations, then carriers);
 * 409 when the site was provisioned linked or any id is not one of the site's adoptable rows, so
 * nothing the admin did not see as adoptable is ever applied.
 */
export function chosenRows(plan: AdoptionPlan, ids: readonly number[]): AdoptionRow[] {
  if (!plan.wasStandalone) {
    throw new ConflictError(
      'site-linked-from-start',
      `Site ${plan.siteId} was set up linked to the cloud: its edge never ran on its own, so it has no records of its own to adopt.`,
      { siteId: plan.siteId },
    );
  }
  const byId = new Map(plan.rows.map((r) => [r.deadLetterId, r]));
  const unique = [...new Set(ids)];
  const refused = unique.filter((id) => {
    const row = byId.get(id);
    return !row || row.refusal !== undefined;
  });
  if (refused.length > 0) {
    throw new ConflictError(
      'not-adoptable',
      `Some of the chosen records cannot be adopted from site ${plan.siteId} (see the adoption preview for why); nothing was adopted.`,
      { siteId: plan.siteId, deadLetterIds: refused },
    );
  }
  const chosen = unique.map((id) => byId.get(id)!);
  return chosen.sort(
    (a, b) =>
      ADOPTABLE_KINDS.indexOf(a.entity) - ADOPTABLE_KINDS.indexOf(b.entity) ||
      a.deadLetterId - b.deadLetterId,
  );
}

interface LetterRow {
  id: number;
  entity: string;
  entity_id: string;
  data: string;
}

function parseLetter(text: string): { op: 'upsert' | 'delete'; data: Record<string, unknown> } {
  let payload: { op?: unknown; data?: unknown } = {};
  try {
    payload = JSON.parse(text) as typeof payload;
  } catch {
    // Unreadable: shown as an upsert without fields; applying it would fail and keep its letter.
  }
  const data =
    payload.data && typeof payload.data === 'object' && !Array.isArray(payload.data)
      ? (payload.data as Record<string, unknown>)
      : {};
  return { op: payload.op === 'delete' ? 'delete' : 'upsert', data };
}

const MARK_GET = statement('adopt|mark', 'value', 'SELECT value FROM sync_meta WHERE name = ?');
const LETTERS = statement(
  'adopt|letters',
  'rows',
  "SELECT id, entity, entity_id, data FROM dead_letter WHERE peer = ? AND error LIKE '[cloud-owned]%' ORDER BY id",
);
const YARD_SITE = statement('adopt|yard-site', 'value', 'SELECT site_id FROM yard WHERE id = ?');
