import type { EventBus } from './bus.js';
import type { CameraSources } from './cameras/types.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppDatabase, Kdb } from './db/database.js';
import type { GateHardware } from './hardware.js';
import type { ErrorStats } from './http/error-stats.js';
import type { Logger } from './log.js';
import type { Services } from './services.js';
import type { ChangeCapture } from './sync/change-capture.js';
import type { Hlc } from './sync/hlc.js';
import type { SyncFacade } from './sync/runtime.js';

/**
 * What every module service is built from. Assembled once by createApp; nothing here is a
 * module-level singleton. `services` lets a service call another module's service.
 */
export interface Core {
  config: Config;
  db: AppDatabase;
  kysely: Kdb;
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
  services: Services;
}
