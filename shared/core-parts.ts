import type { EventBus } from './bus.js';
import type { CameraSources } from './cameras/types.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppDatabase, Kdb } from './db/database.js';
import type { ReadPool } from './db/read-pool.js';
import type { GateHardware } from './hardware.js';
import type { ErrorStats } from './http/error-stats.js';
import type { Logger } from './log.js';
import type { RoleProfile } from './role-profile.js';
import type { ChangeCapture } from './sync/change-capture.js';
import type { Hlc } from './sync/hlc.js';
import type { SyncFacade } from './sync/runtime.js';
import type { SyncSide } from './sync/side.js';

/**
 * The parts every module service is built from, assembled once by createApp; nothing here is a
 * module-level singleton. A service names the few it uses (`Pick<CoreParts, ...>`) and the other
 * services it calls in its own deps type; this file imports no module, so no import cycle runs
 * through it.
 */
export interface CoreParts {
  config: Config;
  db: AppDatabase;
  kysely: Kdb;
  /**
   * Heavy reads (dashboard figures, task summaries) off the event loop: `reads.kysely` builds
   * queries as `kysely` does, run by worker threads at their own snapshot (see read-pool.ts for what
   * must not read through it).
   */
  reads: ReadPool;
  clock: Clock;
  bus: EventBus;
  log: Logger;
  hlc: Hlc;
  changes: ChangeCapture;
  gates: GateHardware;
  cameras: CameraSources;
  /** 4xx/5xx counters per yard; call flush() before reading http_error_stat. */
  errorStats: ErrorStats;
  paths: { data: string; attachments: string; ui: string };
  /** Sync mode and parts (change streams, remote commands); mode standalone has no parts. */
  sync: SyncFacade;
  /** The edge/cloud differences of sync (origin, routing, hub), chosen once from the role. */
  syncSide: SyncSide;
  /**
   * What differs by role (role-profile.ts), for what is only reported (the status endpoints' role
   * and mode): behaviour that differs is plugged as parts by the composition root, never read here.
   */
  profile: RoleProfile;
}
