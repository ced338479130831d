import type { CoreParts } from '../../shared/core-parts.js';
import { AppError, SiteOfflineError } from '../../shared/http/errors.js';
import { newId } from '../../shared/ids.js';
import {
  type Command,
  type CommandKind,
  CommandResult,
  decode,
  isCommandResult,
  PROTOCOL_V,
  parseTopic,
  topicsFor,
} from '../../shared/sync/protocol.js';
import type { RemoteCommands, SyncComponent } from '../../shared/sync/runtime.js';
import type { SyncTransport } from '../../shared/sync/transport.js';

interface Pending {
  siteId: string;
  kind: CommandKind;
  resolve: (result: unknown) => void;
  reject: (err: AppError) => void;
  timer: NodeJS.Timeout;
}

/** Ids of commands we gave up on, kept this long so a late answer is reported as late, not unknown. */
const GAVE_UP_MEMORY_MS = 10 * 60_000;
const GAVE_UP_MAX = 1_000;

export type RemoteCommandsDeps = Pick<CoreParts, 'config' | 'kysely' | 'clock' | 'log'>;

/**
 * Cloud side of the command channel (docs/sync.md "Commands": down/cmd and up/cmd-result): sends a command to one
 * site's edge and waits for its answer. Commands are never queued: they are published with QoS 0
 * (a broker keeps nothing for an offline edge), carry a deadline, and a call that has no answer
 * within sync.commandTimeoutMs fails with 504 site-offline; the edge refuses to run it after its
 * deadline (edge/sync/command-handler.ts), so a 504 means "did not and will not happen".
 *
 * The transport is shared with the change streams, which start and stop it; this component only
 * listens on it. With several cloud nodes, the answer must reach the node holding the HTTP request:
 * each command names its node (`replyTo`), and the edge answers on that node's own topic.
 */
export class RemoteCommandsClient implements RemoteCommands, SyncComponent {
  private readonly pending = new Map<string, Pending>();
  /** Command id -> when we gave up on it (epoch ms of our clock). */
  private readonly gaveUp = new Map<string, number>();
  private listening = false;
  private running = false;

  constructor(
    private readonly deps: RemoteCommandsDeps,
    private readonly transport: SyncTransport,
    /** This cloud node (cloudNodeId): edges answer on its own topic (protocol.ts commandResultTopic). */
    private readonly nodeId?: string,
  ) {}

  async start(): Promise<void> {
    this.running = true;
    if (this.listening) return;
    this.listening = true;
    this.transport.onMessage((topic, payload) => this.onMessage(topic, payload));
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const [id, call] of this.pending) {
      this.settle(id);
      call.reject(
        new SiteOfflineError(
          'The cloud is shutting down; the command was not answered and will not run later.',
        ),
      );
    }
  }

  async send(siteId: string, kind: CommandKind, args: Record<string, unknown>): Promise<unknown> {
    if (!this.running || !this.transport.connected) {
      throw new SiteOfflineError(
        `The cloud is not connected to the message broker, so site ${siteId} cannot be reached; nothing was sent.`,
      );
    }
    if (await this.knownOffline(siteId)) {
      throw new SiteOfflineError(`Site ${siteId} is offline (its edge is not connected); nothing was sent.`);
    }
    const timeoutMs = this.deps.config.sync.commandTimeoutMs;
    const sentAt = this.deps.clock.now();
    const command: Command = {
      v: PROTOCOL_V,
      id: newId(),
      kind,
      args,
      deadline: sentAt + timeoutMs,
      sentAt,
      ...(this.nodeId ? { replyTo: this.nodeId } : {}),
    };
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => this.timeOut(command.id, timeoutMs), timeoutMs);
      this.pending.set(command.id, { siteId, kind, resolve, reject, timer });
    });
    try {
      // QoS 0: a broker stores nothing for an edge that is offline (see the class comment).
      await this.transport.publish(topicsFor(siteId).downCmd, JSON.stringify(command), { qos: 0 });
      this.deps.log.info({ siteId, kind, commandId: command.id }, 'command sent to site');
    } catch (err) {
      const call = this.pending.get(command.id);
      this.settle(command.id);
      call?.reject(
        new SiteOfflineError(
          `The command could not be sent to site ${siteId} (${(err as Error).message}); nothing was sent.`,
        ),
      );
    }
    return answer;
  }

  /** Commands waiting for their edge's answer (for tests and status). */
  get inFlight(): number {
    return this.pending.size;
  }

  private async knownOffline(siteId: string): Promise<boolean> {
    const site = await this.deps.kysely
      .selectFrom('site')
      .select('linkState')
      .where('id', '=', siteId)
      .executeTakeFirst();
    return site?.linkState === 'offline';
  }

  private timeOut(id: string, timeoutMs: number): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.settle(id);
    this.rememberGaveUp(id);
    this.deps.log.warn(
      { siteId: call.siteId, kind: call.kind, commandId: id },
      'site did not answer a command in time',
    );
    call.reject(
      new SiteOfflineError(
        `Site ${call.siteId} did not answer within ${Math.round(timeoutMs / 100) / 10} s. ` +
          'The command will not run later; try again when the site is online.',
      ),
    );
  }

  private onMessage(topic: string, payload: Buffer): void {
    const parsed = parseTopic(topic);
    if (!parsed || !isCommandResult(parsed.rest)) return;
    const result = decode(CommandResult, payload);
    if (!result) {
      this.deps.log.warn({ siteId: parsed.siteId }, 'malformed command result dropped');
      return;
    }
    const call = this.pending.get(result.id);
    if (!call || call.siteId !== parsed.siteId) {
      if (this.gaveUp.has(result.id)) {
        this.deps.log.warn(
          { siteId: parsed.siteId, commandId: result.id, ok: result.ok },
          'late command result dropped (the caller already got 504 site-offline)',
        );
      } else {
        // Answers to other components' commands (resync) arrive here too.
        this.deps.log.debug(
          { siteId: parsed.siteId, commandId: result.id },
          'command result for no pending call',
        );
      }
      return;
    }
    this.settle(result.id);
    if (result.ok) call.resolve(result.result);
    else call.reject(edgeProblem(call.siteId, result));
  }

  private settle(id: string): void {
    const call = this.pending.get(id);
    if (call) clearTimeout(call.timer);
    this.pending.delete(id);
  }

  private rememberGaveUp(id: string): void {
    const now = this.deps.clock.now();
    for (const [old, at] of this.gaveUp) {
      if (this.gaveUp.size < GAVE_UP_MAX && now - at < GAVE_UP_MEMORY_MS) break;
      this.gaveUp.delete(old);
    }
    this.gaveUp.set(id, now);
  }
}

/**
 * The edge's problem as this cloud answers it: same status and code, so a client sees what the edge
 * said. A wait the edge named (429 rate-limited) is kept as `retryAfterSec`, which the route
 * registrar turns into the Retry-After header, as the edge itself would have answered.
 */
function edgeProblem(siteId: string, result: CommandResult): AppError {
  const error = result.error;
  if (!error || !Number.isInteger(error.status) || error.status < 400 || error.status > 599) {
    return new AppError(
      502,
      'bad-site-answer',
      'Bad answer from the site',
      `Site ${siteId} refused the command without a usable reason.`,
    );
  }
  return new AppError(
    error.status,
    error.code,
    error.title ?? 'Error at the site',
    error.detail,
    undefined,
    error.retryAfterSec === undefined ? undefined : { retryAfterSec: error.retryAfterSec },
  );
}
