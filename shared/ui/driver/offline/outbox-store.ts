import { createStore, get, type UseStore, update } from 'idb-keyval';
import type { OutboxState } from './outbox-queue';

const EMPTY: OutboxState = { pending: [], conflicts: [] };
const KEY = 'outbox';

/**
 * The outbox in IndexedDB (idb-keyval), as one record changed in one transaction each time, so an
 * action moves from pending to conflicts atomically and two tabs never see half a change. Where
 * IndexedDB is missing or refuses (some private modes), the state lives in memory only: the app
 * still works, it just forgets the queue on reload.
 */
export class OutboxStore {
  private idb: UseStore | undefined;
  private memory: OutboxState = EMPTY;

  constructor(dbName = 'yard-driver', storeName = 'outbox') {
    try {
      this.idb = typeof indexedDB === 'undefined' ? undefined : createStore(dbName, storeName);
    } catch {
      this.idb = undefined;
    }
  }

  async load(): Promise<OutboxState> {
    if (this.idb) {
      try {
        this.memory = normalise(await get<OutboxState>(KEY, this.idb));
      } catch {
        this.idb = undefined;
      }
    }
    return this.memory;
  }

  /** Applies `change` to the stored state (read and written in one transaction); the new state. */
  async change(change: (state: OutboxState) => OutboxState): Promise<OutboxState> {
    if (this.idb) {
      let next = this.memory;
      try {
        await update<OutboxState>(
          KEY,
          (old) => {
            next = change(normalise(old));
            return next;
          },
          this.idb,
        );
        this.memory = next;
        return next;
      } catch {
        this.idb = undefined;
      }
    }
    this.memory = change(this.memory);
    return this.memory;
  }
}

function normalise(state: OutboxState | undefined): OutboxState {
  return {
    pending: Array.isArray(state?.pending) ? state.pending : [],
    conflicts: Array.isArray(state?.conflicts) ? state.conflicts : [],
  };
}
