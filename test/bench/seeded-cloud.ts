import { constants, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppProcess, freePort } from '../helpers/sync-processes.js';

/** The admin every seeded organisation of the dashboard benchmarks has (dashboard-seed.ts). */
export const BENCH_ADMIN = { username: 'bench-admin', password: 'bench-admin-password-1' };

/**
 * A cloud, as `npm run cloud` starts it, on a copy of a seeded database in `dir` (a clone where
 * the file system has them: the cached seed stays as seeded). Not started yet: `start()` migrates
 * the copy. `cpuProfileDir`: V8 CPU profiles of each of its threads, written when it stops.
 */
export async function seededCloud(
  seedFile: string,
  dir: string,
  cpuProfileDir?: string,
): Promise<AppProcess> {
  copyFileSync(seedFile, join(dir, 'yard.db'), constants.COPYFILE_FICLONE);
  return new AppProcess(
    'cloud',
    'cloud/main.ts',
    await freePort(),
    {
      YARD_ROLE: 'cloud',
      YARD_DATA_DIR: dir,
      YARD_MQTT_HOST: '127.0.0.1',
      YARD_MQTT_PORT: String(await freePort()),
      YARD_ADMIN_USER: BENCH_ADMIN.username,
      YARD_ADMIN_PASSWORD: BENCH_ADMIN.password,
      YARD_LOG_LEVEL: 'warn',
    },
    cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [],
  );
}
