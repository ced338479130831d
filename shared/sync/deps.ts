import type { EventBus } from '../bus.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AppDatabase } from '../db/database.js';
import type { Logger } from '../log.js';
import type { ChangeCapture } from './change-capture.js';
import type { Hlc } from './hlc.js';
import type { SyncSide } from './side.js';

/**
 * Everything the sync engine is built from: the database, the clocks, the log, the configuration and
 * the typed event bus on which it announces what applied changes mean (events.ts). It knows no
 * module service; modules react to its events (reactions.ts). Each part takes the few fields it uses
 * (`Pick<SyncDeps, ...>`); the app's core has them all.
 */
export interface SyncDeps {
  db: AppDatabase;
  clock: Clock;
  log: Logger;
  config: Config;
  /** This side's hybrid logical clock (stamps and receives change clocks). */
  hlc: Hlc;
  /** The local change log and the cache generations of tables. */
  changes: ChangeCapture;
  bus: EventBus;
  /** What this side of sync does differently (edge or cloud), chosen once at start. */
  syncSide: SyncSide;
}
