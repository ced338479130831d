import type { Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from '../../http/errors.js';
import { zodIssuesToFieldErrors } from '../../http/validation.js';
import { assertOrganisationWide } from '../auth/admin-scope.js';
import {
  definitionOf,
  isSettingName,
  SETTING_NAMES,
  type SettingName,
  type SettingValue,
} from './registry.js';
import { SettingRepo, type SettingRow } from './repo.js';
import type { SettingOutT } from './schema.js';

/** What a stored row means now: its value if it still passes the registry, else nothing. */
interface Stored {
  row: SettingRow;
  value: unknown;
  valid: boolean;
}

export type SettingsDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'bus' | 'log'>;

/**
 * Settings from the registry, stored values over defaults. Stored values are cached in memory
 * until the setting table's generation moves (db/generations.ts): a write here, a row applied by
 * sync, or a commit at another cloud node.
 */
export class SettingsService {
  private readonly repo: SettingRepo;
  private cache: Map<string, Stored> | null = null;
  private generation = 0;

  constructor(private readonly deps: SettingsDeps) {
    this.repo = new SettingRepo(deps.kysely);
    // Settings written another way than through this service (applied by sync, or by another cloud
    // node on PostgreSQL) move the table's generation.
    deps.changes.generations.watch(['setting'], () => this.invalidate());
  }

  /** The value in force: the stored one, else the registry default. */
  async get<K extends SettingName>(name: K): Promise<SettingValue<K>> {
    const stored = (await this.stored()).get(name);
    return (stored?.valid ? stored.value : definitionOf(name).default) as SettingValue<K>;
  }

  invalidate(): void {
    this.generation += 1;
    this.cache = null;
  }

  async list(opts: { limit: number; cursor?: string | undefined }) {
    const after = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const names = SETTING_NAMES.filter((n) => after === undefined || n > after).slice(0, opts.limit + 1);
    const stored = await this.stored();
    return toPage(
      names,
      opts.limit,
      (name) => settingOut(name, stored.get(name)),
      (name) => [name],
    );
  }

  async getOne(name: string): Promise<SettingOutT> {
    if (!isSettingName(name)) throw new NotFoundError('Setting', name);
    return settingOut(name, (await this.stored()).get(name));
  }

  /**
   * Stores several settings in one transaction. Every name and value is checked first; any
   * problem is one 400 listing each bad setting, and nothing is stored. null resets to the default.
   */
  async update(principal: Principal, input: Record<string, unknown>): Promise<SettingOutT[]> {
    // Every setting applies to a whole site or to the organisation, beyond any one yard.
    assertOrganisationWide(principal, 'Settings');
    const errors: FieldError[] = [];
    const accepted: Array<{ name: SettingName; value: unknown }> = [];
    for (const [name, raw] of Object.entries(input)) {
      const part = `body.settings.${name}`;
      if (!isSettingName(name)) {
        errors.push({ path: part, message: 'unknown setting', code: 'unknown-setting' });
        continue;
      }
      if (raw === null) {
        accepted.push({ name, value: null });
        continue;
      }
      const parsed = definitionOf(name).schema.safeParse(raw);
      if (parsed.success) accepted.push({ name, value: parsed.data });
      else errors.push(...zodIssuesToFieldErrors(parsed.error.issues, part));
    }
    if (errors.length > 0)
      throw new ValidationError(errors, 'Some settings are unknown or invalid; nothing was stored.');
    this.assertOwnedHere(accepted.map((a) => a.name));

    const now = this.deps.clock.now();
    try {
      await this.deps.kysely.transaction().execute(async (trx) => {
        const repo = new SettingRepo(trx);
        for (const { name, value } of accepted) {
          const existing = await repo.byName(name);
          if (value === null) {
            if (existing) await this.deps.changes.delete(trx, 'setting', name);
            continue;
          }
          const json = JSON.stringify(value);
          const scope = definitionOf(name).scope;
          if (!existing) {
            await this.deps.changes.insert(trx, 'setting', {
              name,
              value: json,
              scope,
              updatedBy: principal.id,
              createdAt: now,
              updatedAt: now,
            });
          } else if (existing.value !== json || existing.scope !== scope) {
            await this.deps.changes.update(trx, 'setting', name, {
              value: json,
              scope,
              updatedBy: principal.id,
              updatedAt: now,
            });
          }
        }
      });
    } finally {
      this.invalidate();
    }
    const names = accepted.map((a) => a.name);
    this.deps.bus.publish({ type: 'settings.changed', data: { names } });
    const stored = await this.stored();
    return names.map((name) => settingOut(name, stored.get(name)));
  }

  /**
   * When linked, global settings are the cloud's and site settings each edge's (docs/domain.md "Settings"): one
   * 409 naming every setting this side may not write, before anything is stored. (ChangeCapture
   * refuses them too; this answers with the names and keeps a mixed request all or nothing.)
   */
  private assertOwnedHere(names: SettingName[]): void {
    const refused = names.filter(
      (name) => !this.deps.changes.mayWrite('setting', { scope: definitionOf(name).scope }),
    );
    if (refused.length === 0) return;
    const list = refused.join(', ');
    if (definitionOf(refused[0]!).scope === 'global') {
      throw new ConflictError(
        'cloud-owned',
        `Global settings are managed in the cloud: this edge is linked to it and keeps a read-only copy (${list}). ` +
          'Change them in the cloud dashboard; nothing was stored.',
        { owner: 'cloud', settings: refused },
      );
    }
    throw new ConflictError(
      'edge-owned',
      `Site settings are set at each yard site's edge, not in the cloud (${list}). Change them on the site's edge; nothing was stored.`,
      { owner: 'edge', settings: refused },
    );
  }

  private async stored(): Promise<Map<string, Stored>> {
    if (this.cache) return this.cache;
    const generation = this.generation;
    const map = new Map<string, Stored>();
    for (const row of await this.repo.all()) {
      if (!isSettingName(row.name)) continue; // a setting this version no longer knows
      map.set(row.name, this.interpret(row.name, row));
    }
    // A write that landed while reading makes this snapshot stale: use it once, do not keep it.
    if (generation === this.generation) this.cache = map;
    return map;
  }

  private interpret(name: SettingName, row: SettingRow): Stored {
    try {
      const parsed = definitionOf(name).schema.safeParse(JSON.parse(row.value));
      if (parsed.success) return { row, value: parsed.data, valid: true };
    } catch {
      // not JSON: treated like a value that fails the schema
    }
    this.deps.log.warn({ setting: name }, 'stored setting value is not valid; using the default');
    return { row, value: undefined, valid: false };
  }
}

function settingOut(name: SettingName, stored: Stored | undefined): SettingOutT {
  const definition = definitionOf(name);
  const inForce = stored?.valid === true;
  return {
    name,
    value: inForce ? stored.value : definition.default,
    default: definition.default,
    isDefault: !inForce,
    scope: definition.scope,
    description: definition.description,
    updatedAt: stored ? toIso(stored.row.updatedAt) : null,
    updatedBy: stored ? stored.row.updatedBy : null,
  };
}
