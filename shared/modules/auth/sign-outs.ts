import type { Clock } from '../../clock.js';
import type { AppDatabase } from '../../db/database.js';
import { type SqlWork, sqlRun, statement } from '../../db/sql-work.js';
import { type AnyRowObserver, type RowWrite, workObserver } from '../../sync/row-observers.js';

/** A user or driver whose sessions end. */
export interface SignedOut {
  kind: 'user' | 'driver';
  id: string;
}

/**
 * Which change of a user or driver row ends their open sessions: a user disabled or given a new
 * password, role or yard scope; a driver blocked or given a new PIN or driver code.
 */
export function signedOutBy({ table, before, after }: RowWrite): SignedOut | undefined {
  if (!before || !after) return undefined;
  if (table === 'appUser') {
    const signOut =
      (after.disabled && !before.disabled) ||
      before.passwordHash !== after.passwordHash ||
      before.role !== after.role ||
      before.yardIds !== after.yardIds;
    return signOut ? { kind: 'user', id: String(after.id) } : undefined;
  }
  const signOut =
    (after.status === 'blocked' && before.status !== 'blocked') ||
    before.pinHash !== after.pinHash ||
    before.driverCode !== after.driverCode;
  return signOut ? { kind: 'driver', id: String(after.id) } : undefined;
}

/**
 * Sign-outs as a derived rule: such a change revokes the principal's auth tokens (local to each
 * side, never synced) in the change's own transaction, whether the users or drivers module wrote
 * it here or sync applied it from a peer. The applier announces the sign-out for after its commit,
 * where reactions.ts drops the principals cached in memory and ends their event streams; a local
 * write's service does that itself (Sessions.revokeSessionsOf).
 */
export function signOutsOnChange(db: AppDatabase, clock: Clock): AnyRowObserver {
  return workObserver(db, { tables: PRINCIPALS, writes: TOKENS }, (write) => signOut(write, clock));
}

const PRINCIPALS: ReadonlySet<string> = new Set(['appUser', 'driver']);
const TOKENS: ReadonlySet<string> = new Set(['authToken']);

function* signOut(write: RowWrite, clock: Clock): SqlWork<void> {
  const who = signedOutBy(write);
  if (!who) return;
  yield* sqlRun(TOKENS_REVOKED, [clock.now(), who.kind, who.id]);
  write.announce?.({ type: 'sync.signed-out', data: who });
}

const TOKENS_REVOKED = statement(
  'auth_token|revoke',
  'changes',
  'UPDATE auth_token SET revoked_at = ? WHERE principal_kind = ? AND principal_id = ? AND revoked_at IS NULL',
);
