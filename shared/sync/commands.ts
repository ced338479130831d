import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import type { Kdb } from '../db/database.js';
import { AppError, NotFoundError, SiteOfflineError } from '../http/errors.js';
import type { Logger } from '../log.js';
import {
  COMMAND_CLOCK_SKEW_MS,
  type Command,
  type CommandKind,
  MAX_COMMAND_LIFETIME_MS,
} from './protocol.js';
import type { SyncFacade } from './runtime.js';
import type { MessageMeta } from './transport.js';

/**
 * The args and results of the cloud -> edge commands that run a yard's hardware (docs/sync.md "Commands").
 * Both sides parse with these: the edge the args it is asked to run, the cloud the result it answers
 * its own client with. (`resync` belongs to the change streams and is not described here.)
 */

/** The cloud user on whose behalf a command runs: recorded at the edge (gate audit, attachment creator). */
export const RequestedBy = z.object({
  id: z.string().min(1),
  name: z.string(),
  kind: z.enum(['user', 'driver', 'api-key']),
});
export type RequestedBy = z.infer<typeof RequestedBy>;

export const ActuateArgs = z.object({
  gateId: z.string().min(1),
  reason: z.string().max(500).nullish(),
  requestedBy: RequestedBy,
});
export type ActuateArgs = z.infer<typeof ActuateArgs>;

export const SnapshotArgs = z.object({
  cameraId: z.string().min(1),
  store: z.boolean().default(false),
  requestedBy: RequestedBy,
});
export type SnapshotArgs = z.infer<typeof SnapshotArgs>;

/** A picture taken at the edge; `bytes` is the length of the decoded base64, checked by the cloud. */
export const SnapshotResult = z.object({
  contentType: z.string().min(1),
  base64: z.string(),
  bytes: z.number().int().min(0),
  elapsedMs: z.number().min(0),
  /** The attachment made at the edge with store=true (its row reaches the cloud by sync). */
  attachmentId: z.string().nullable(),
  takenAt: z.string(),
});
export type SnapshotResult = z.infer<typeof SnapshotResult>;

/**
 * Why an edge must not act on a command at all, whatever its kind; undefined when it may (the
 * deadline check comes after this, edge/sync/command-handler.ts). The cloud never sends a command
 * like these, and only the cloud may publish on `down/cmd` (broker ACL), so each one is a replay or
 * a forgery; refusing it must leave no trace in the edge's state (its clock samples, seen ids).
 * - `retained`: delivered from the broker's retained store. The cloud never retains a command; a
 *   stored one would run again on every reconnect.
 * - `lifetime`: `deadline - sentAt` negative or above MAX_COMMAND_LIFETIME_MS.
 * - `future`: sent at a time more than the tolerated clock skew ahead of this edge's clock.
 */
export type CommandRefusal = 'retained' | 'lifetime' | 'future';

export function commandRefusal(
  command: Pick<Command, 'sentAt' | 'deadline'>,
  meta: MessageMeta | undefined,
  edgeNow: number,
): CommandRefusal | undefined {
  if (meta?.retain) return 'retained';
  const lifetime = command.deadline - command.sentAt;
  if (lifetime < 0 || lifetime > MAX_COMMAND_LIFETIME_MS) return 'lifetime';
  if (command.sentAt > edgeNow + COMMAND_CLOCK_SKEW_MS) return 'future';
  return undefined;
}

/** How the edge logs and answers each refusal (a retained replay gets no answer: nobody waits for it). */
export const COMMAND_REFUSALS: Record<CommandRefusal, { log: string; problem?: () => AppError }> = {
  retained: {
    log:
      'retained command refused, not run (the cloud never retains commands: this is a replay; ' +
      'clear it at the broker with an empty retained message on the topic)',
  },
  lifetime: {
    log: 'command with an impossible deadline refused, not run',
    problem: () =>
      new AppError(
        400,
        'command-invalid',
        'Invalid command',
        `The command's deadline is not within ${MAX_COMMAND_LIFETIME_MS / 1000} s of its send time; it was not run.`,
      ),
  },
  future: {
    log: "command sent beyond the clock skew in this edge's future refused, not run (is NTP working here and at the cloud?)",
    problem: () =>
      new AppError(
        503,
        'clock-skew',
        'Clocks disagree',
        `The command was sent more than ${COMMAND_CLOCK_SKEW_MS / 60_000} minutes ahead of this site's clock; it was not run. ` +
          'Check the time (NTP) at the site and at the cloud.',
      ),
  },
};

export function requestedBy(principal: Principal): RequestedBy {
  return { id: principal.id, name: principal.name, kind: principal.kind };
}

/**
 * commandAtSiteOfYard with its parts bound (shared/services.ts): what a service that has the edge of
 * a yard's site act for it is handed.
 */
export type RunAtSiteOfYard = <T>(
  yardId: string,
  kind: CommandKind,
  args: Record<string, unknown>,
  resultSchema: z.ZodType<T>,
) => Promise<T>;

/**
 * Cloud: runs a command at the edge serving the yard and returns its result, parsed. Rejects with
 * the edge's own problem, or 504 site-offline (core.sync.commands, cloud/sync/remote-commands.ts).
 */
export async function commandAtSiteOfYard<T>(
  core: { kysely: Kdb; log: Logger; sync: Pick<SyncFacade, 'commands'> },
  yardId: string,
  kind: CommandKind,
  args: Record<string, unknown>,
  resultSchema: z.ZodType<T>,
): Promise<T> {
  // Which site serves a yard is routing knowledge of sync (routing.ts reads yard.site_id too).
  const yard = await core.kysely
    .selectFrom('yard')
    .select('siteId')
    .where('id', '=', yardId)
    .executeTakeFirst();
  if (!yard) throw new NotFoundError('Yard', yardId);
  const commands = core.sync.commands;
  if (!commands) {
    throw new SiteOfflineError(
      `This cloud has no command link to the yard's site ${yard.siteId} (MQTT is not configured); nothing was sent.`,
    );
  }
  const result = await commands.send(yard.siteId, kind, args);
  const parsed = resultSchema.safeParse(result);
  if (!parsed.success) {
    core.log.error(
      { siteId: yard.siteId, kind, issues: parsed.error.issues },
      'edge answered a command badly',
    );
    throw new AppError(
      502,
      'bad-site-answer',
      'Bad answer from the site',
      `The edge of site ${yard.siteId} answered the ${kind} command with something this cloud does not understand; check that both run the same version.`,
    );
  }
  return parsed.data;
}
