import { DeadLetterSummary } from './dead-letter-log.js';
import type { SyncDeps } from './deps.js';
import type { AfterCommitEvent } from './row-observers.js';

/** A row the cloud forwards to other sites' change logs (written at the end of the work). */
export interface Forward {
  peers: string[];
  params: [entity: string, id: string, op: string, hlc: string, origin: string, schemaV: number];
  /** Each peer's data (`peers[i]` gets `data[i]`: a unit's share, unit-shares.ts). */
  data: string[];
}

/** Effects of one transaction, published after it commits (publishTouched). */
export class Touched {
  readonly tables = new Set<string>();
  readonly yards = new Set<string>();
  readonly queuedYards = new Set<string>();
  readonly drivers = new Set<string>();
  readonly forwardedTo = new Set<string>();
  readonly entities = new Map<string, number>();
  /** What observers announced for after the commit (a sign-out), published in order. */
  readonly afterCommit: AfterCommitEvent[] = [];
  /** Forwarded rows of applied changes not yet written (RowApplier.writeForwards). */
  readonly forwards: Forward[] = [];
  /** Rows dead-lettered, logged in one line after commit. */
  readonly deadLetters = new DeadLetterSummary();
  applied = 0;
}

/**
 * After commit: caches, forwarded rows announced, then events (events.ts): sign-outs, live updates,
 * yards with queued tasks. What the domain does about them is wired in reactions.ts.
 */
export function publishTouched(
  deps: Pick<SyncDeps, 'changes' | 'bus' | 'log'>,
  peer: string,
  touched: Touched,
): void {
  const { changes, bus } = deps;
  touched.deadLetters.log(deps.log, peer);
  for (const table of touched.tables) changes.generations.bump(table);
  if (touched.forwardedTo.size > 0) changes.notifyLogged(touched.forwardedTo);
  // What the modules' derived rules announced (a sign-out: its tokens were revoked in the
  // transaction; principals cached in memory go on this event).
  for (const event of touched.afterCommit) bus.publish(event);
  if (touched.applied === 0) return;
  const entities = Object.fromEntries(touched.entities);
  const yardIds = [...touched.yards];
  for (const yardId of yardIds) {
    bus.publish({ type: 'sync.applied', yardId, data: { peer, yardIds: [yardId], entities } });
  }
  // Org-wide records (and watchers of every yard) get one event without a yard.
  bus.publish({ type: 'sync.applied', yardId: null, data: { peer, yardIds, entities } });
  for (const driverId of touched.drivers) {
    bus.publish({ type: 'sync.applied', driverId, data: { peer, entities: { yard_task: 1 } } });
  }
  for (const yardId of touched.queuedYards) bus.publish({ type: 'sync.tasks-queued', data: { yardId } });
}
