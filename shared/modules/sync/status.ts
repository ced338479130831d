import type { Core } from '../../core.js';
import type { z } from '../../http/zod.js';
import type { SyncStatusOut } from './schema.js';

/** Sync figures for /readyz: the runtime's queue, or the local log's when sync does not run. */
export async function syncReadiness(core: Core): Promise<{ mode: string; queued: number }> {
  const runtime = core.sync.runtime;
  if (runtime) return { mode: core.sync.mode, queued: await runtime.queued() };
  const status = await standaloneStatus(core);
  return { mode: status.mode, queued: status.queued };
}

/** GET /api/sync/status: the runtime's answer when sync runs (linked edge, cloud), else what the local log says. */
export async function syncStatus(core: Core): Promise<z.input<typeof SyncStatusOut>> {
  const runtime = core.sync.runtime;
  if (runtime) return (await runtime.status()) as z.input<typeof SyncStatusOut>;
  return standaloneStatus(core);
}

async function standaloneStatus(core: Core) {
  const peer = 'cloud';
  const last = await core.kysely
    .selectFrom('changeLog')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('peer', '=', peer)
    .executeTakeFirst();
  const cursor = await core.kysely
    .selectFrom('syncCursor')
    .selectAll()
    .where('peer', '=', peer)
    .executeTakeFirst();
  const dead = await core.kysely
    .selectFrom('deadLetter')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const lastSeq = Number(last?.seq ?? 0);
  const ackedSeq = cursor?.ackedSeq ?? 0;
  return {
    mode: core.sync.mode,
    role: core.config.role,
    siteId: core.config.siteId,
    lastSeq,
    ackedSeq,
    queued: Math.max(0, lastSeq - ackedSeq),
    deadLetters: Number(dead.n),
    clockSkewMs: Math.round(core.hlc.maxSkewMs),
  };
}
