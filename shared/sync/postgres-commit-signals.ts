import type { PostgresListener } from '../db/postgres-listener.js';
import type { ChangeCapture } from './change-capture.js';
import { toCamel } from './row-sql.js';

/**
 * The channels PostgreSQL's triggers (the PostgreSQL twin of migration 0011) notify on. A
 * notification is sent when its transaction commits, and only if it commits, to every node,
 * the writing one included.
 */
export const TABLE_CHANGED_CHANNEL = 'yard_table_changed';
export const PEER_LOGGED_CHANNEL = 'yard_peer_logged';

/**
 * What the transactions of every cloud node changed, heard by this node (docs/architecture.md "Two databases, and several cloud nodes"), so that what
 * the node keeps in memory follows writes made through the others:
 * - a table changed: its generation moves on (cached trailer pages, settings, principals drop
 *   what they built from it: TableGenerations watchers). The writing node hears its own commits
 *   too, which also closes the window in which a cache could keep an answer read between its
 *   in-transaction bump and the commit;
 * - change-log rows were written for a site: the links are woken as for a local write, so the node
 *   that sends to that site sends them now, whichever node wrote them.
 * After the connection was lost, every table counts as changed.
 */
export class PostgresCommitSignals {
  constructor(deps: {
    listener: PostgresListener;
    changes: Pick<ChangeCapture, 'generations' | 'notifyLogged'>;
  }) {
    const { listener, changes } = deps;
    listener.on(TABLE_CHANGED_CHANNEL, (table) => {
      if (table) changes.generations.bump(toCamel(table));
    });
    listener.on(PEER_LOGGED_CHANNEL, (peer) => {
      if (peer) changes.notifyLogged([peer]);
    });
    listener.onReconnected(() => changes.generations.bumpAll());
  }
}
