import type { Principal } from '../../auth/principal.js';
import { newToken, sha256Hex } from '../../auth/secrets.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { assertManages, assertMayGrant, type ExistingYards } from './admin-scope.js';
import { apiKeyOut, parseScope } from './out.js';
import type { ApiKeyRow, AuthRepo } from './repo.js';
import type { Sessions } from './sessions.js';

export type ApiKeyAdminDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  repo: AuthRepo;
  yards: ExistingYards;
  sessions: Sessions;
};

/** API keys for machine clients: the ones an admin administers (admin-scope.ts). */
export class ApiKeyAdmin {
  constructor(private readonly deps: ApiKeyAdminDeps) {}

  /** A page of the keys the actor administers (admin-scope.ts). */
  async listApiKeys(actor: Principal, opts: { limit: number; cursor?: string | undefined }) {
    const after = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const rows = await this.deps.repo.listApiKeys({ within: actor.yardIds, limit: opts.limit, after });
    return toPage(rows, opts.limit, apiKeyOut, (r) => [r.id]);
  }

  async createApiKey(
    input: { name: string; role: ApiKeyRow['role']; yardIds?: string[] | null | undefined },
    actor: Principal,
  ) {
    this.deps.changes.assertMayWrite('apiKey');
    await assertMayGrant(this.deps.yards, actor, input.yardIds ?? null, 'body.yardIds');
    const id = newId();
    const secret = newToken();
    const now = this.deps.clock.now();
    const row = await this.deps.changes.insert(this.deps.kysely, 'apiKey', {
      id,
      name: input.name,
      role: input.role,
      yardIds: input.yardIds ? JSON.stringify(input.yardIds) : null,
      secretHash: sha256Hex(secret),
      createdBy: actor.name,
      createdAt: now,
      updatedAt: now,
      revokedAt: null,
    });
    return { ...apiKeyOut(row), key: `yk.${id}.${secret}` };
  }

  /** An already revoked key is left as is (204); at a linked edge every revoke is cloud-owned. */
  async revokeApiKey(id: string, actor: Principal): Promise<void> {
    this.deps.changes.assertMayWrite('apiKey');
    const row = await this.deps.repo.apiKeyById(id);
    if (!row) throw new NotFoundError('API key', id);
    assertManages(actor, parseScope(row.yardIds), 'API key', id);
    if (row.revokedAt !== null) return;
    await this.deps.changes.update(this.deps.kysely, 'apiKey', id, { revokedAt: this.deps.clock.now() });
    this.deps.sessions.live.end((p) => p.kind === 'api-key' && p.id === id, 'credential-revoked');
  }
}
