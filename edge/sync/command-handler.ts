import { performance } from 'node:perf_hooks';
import { toIso } from '../../shared/clock.js';
import type { CoreParts } from '../../shared/core-parts.js';
import { AppError, BadRequestError } from '../../shared/http/errors.js';
import type { CameraService } from '../../shared/modules/cameras/service.js';
import type { HardwareService } from '../../shared/modules/hardware/service.js';
import {
  ActuateArgs,
  COMMAND_REFUSALS,
  type CommandRefusal,
  commandRefusal,
  SnapshotArgs,
  type SnapshotResult,
} from '../../shared/sync/commands.js';
import {
  COMMAND_CLOCK_SKEW_MS,
  Command,
  type CommandResult,
  commandResultTopic,
  decode,
  PROTOCOL_V,
  topicsFor,
} from '../../shared/sync/protocol.js';
import type { SyncComponent } from '../../shared/sync/runtime.js';
import type { MessageMeta, SyncTransport } from '../../shared/sync/transport.js';
import { CloudClockBound } from './cloud-clock.js';
import { parseArgs, problemOf } from './command-replies.js';

/**
 * NEVER LATE: how an edge makes sure a cloud command (open a gate, take a picture) runs only while the
 * cloud is still waiting for it, and never hours after the click.
 *
 * 1. The cloud publishes commands with QoS 0. Brokers keep nothing at QoS 0 for a client that is
 *    offline, even with a persistent session: Aedes sends QoS 0 publishes only to connected
 *    subscribers (aedes.js: publishes above QoS 0 go through `enqueueOffline`, QoS 0 ones skip it;
 *    client.publish delivers QoS 0 without storing), and Mosquitto queues QoS 0 for offline sessions
 *    only with `queue_qos0_messages true` (default false; the deploy config must keep it off). A command sent while
 *    this edge is away is lost, and the cloud answers 504 site-offline.
 * 2. A command can still arrive late on a live connection (a stalled TCP link retransmits for up to
 *    about the keepalive interval, or a broker configured to queue QoS 0). So each command carries
 *    the cloud's deadline and send time, both on the cloud's clock, and this edge's clock may be
 *    minutes off. We do not trust our wall clock for the fine check: each command's `sentAt` minus
 *    our monotonic time at arrival is a lower bound of (cloud clock - our monotonic clock), because
 *    transit time is never negative. The largest such bound seen in the last hour (the fastest
 *    delivery) gives a cloud time that is never ahead of the real one; a command is expired when
 *    that time is past its deadline. This catches a command held up for longer than its budget
 *    relative to the fastest recent delivery, whatever our wall clock says, and never refuses a
 *    timely one (unless the cloud's clock stepped back, which refuses commands for at most an hour).
 * 3. Without earlier commands to compare with (the first after a start, or a burst of stale ones)
 *    the bound says little, so a coarse check on our own wall clock is added: past the deadline by
 *    more than the 5 minutes of clock skew the protocol tolerates (docs/sync.md "Commands") is expired. An edge more than 5 minutes
 *    ahead of the cloud therefore refuses cloud commands, and says so in its log (fix its NTP).
 * 4. The check runs when the command arrives and again right before the relay pulses. An expired
 *    command is answered `command-expired` (if the link is up) and logged; it is never run.
 * 5. A command id runs at most once: ids are remembered for longer than any command can live.
 * 6. Before any of this, a command the cloud would never send is refused and leaves no trace (no
 *    clock sample, no remembered id): a retained one (a replay from the broker's store), one whose
 *    deadline is more than MAX_COMMAND_LIFETIME_MS after its send time, one sent more than the
 *    tolerated skew in our future (as a clock sample it would make every real command look late
 *    for an hour). See commandRefusal in shared/sync/commands.ts.
 *
 * Who may send commands at all is the broker's rule: only the cloud's user may publish on
 * `down/#` (cloud/broker-auth.ts, deploy/mosquitto/acl). Commands are not signed: a per-site key
 * would be provisioned through the same path as the site's broker password and checked against a
 * broker that already refuses everyone else, so it would protect nothing the ACL does not.
 */
const MAX_CLOCK_SKEW_MS = COMMAND_CLOCK_SKEW_MS;
/** Longer than any command can be accepted (deadline + skew tolerance) after it was sent. */
const SEEN_MEMORY_MS = 30 * 60_000;
const MAX_SEEN = 10_000;

/** The edge's parts a cloud command uses: gate actuation and camera snapshots run through their services. */
export type CommandHandlerDeps = Pick<CoreParts, 'config' | 'clock' | 'log'> & {
  hardware: Pick<HardwareService, 'actuate'>;
  cameras: Pick<CameraService, 'snapshotFor'>;
};

export interface CommandHandlerOptions {
  /** Monotonic milliseconds; default performance.now. */
  monotonic?: () => number;
}

/** Edge side of the command channel: runs the cloud's actuate and snapshot commands (docs/sync.md "Commands"). */
export class CommandHandler implements SyncComponent {
  /** What happened to the commands received, for tests and the log. */
  readonly stats = { received: 0, ran: 0, expired: 0, duplicates: 0, refused: 0 };
  private readonly monotonic: () => number;
  private readonly cloudClock: CloudClockBound;
  /** Command id -> monotonic time it arrived. */
  private readonly seen = new Map<string, number>();
  private readonly topics;
  private listening = false;
  private running = false;

  constructor(
    private readonly deps: CommandHandlerDeps,
    private readonly transport: SyncTransport,
    options: CommandHandlerOptions = {},
  ) {
    this.monotonic = options.monotonic ?? (() => performance.now());
    this.cloudClock = new CloudClockBound();
    this.topics = topicsFor(deps.config.siteId);
  }

  async start(): Promise<void> {
    this.running = true;
    if (this.listening) return;
    this.listening = true;
    this.transport.onMessage((topic, payload, meta) => this.onMessage(topic, payload, meta));
  }

  async stop(): Promise<void> {
    this.running = false;
  }

  private onMessage(topic: string, payload: Buffer, meta: MessageMeta | undefined): void {
    if (!this.running || topic !== this.topics.downCmd) return;
    const arrived = this.monotonic();
    const command = decode(Command, payload);
    if (!command) {
      this.deps.log.warn({ topic }, 'malformed command dropped');
      return;
    }
    const refusal = commandRefusal(command, meta, this.deps.clock.now());
    if (refusal) {
      // resync belongs to the change streams (edge/sync/edge-sync.ts), which refuse it themselves.
      if (command.kind !== 'resync') this.refuse(command, refusal);
      return;
    }
    this.cloudClock.observe(command.sentAt, arrived);
    if (command.kind === 'resync') return;
    this.stats.received += 1;
    if (this.seen.has(command.id)) {
      this.stats.duplicates += 1;
      this.deps.log.warn({ commandId: command.id, kind: command.kind }, 'duplicate command ignored');
      return;
    }
    this.remember(command.id, arrived);
    this.handle(command).catch((err: unknown) => {
      this.deps.log.error({ err, commandId: command.id }, 'command handling failed');
    });
  }

  /** Logs a command the cloud would never send and answers why (a retained replay gets no answer). */
  private refuse(command: Command, refusal: CommandRefusal): void {
    this.stats.refused += 1;
    const { id: commandId, kind, sentAt, deadline } = command;
    const { log, problem } = COMMAND_REFUSALS[refusal];
    this.deps.log.warn({ commandId, kind, refusal, sentAt, deadline }, log);
    if (problem) void this.answer(command, { ok: false, error: problemOf(problem()) });
  }

  private async handle(command: Command): Promise<void> {
    const expired = this.expiry(command);
    if (expired) {
      this.stats.expired += 1;
      await this.answer(command, { ok: false, error: problemOf(expired) });
      return;
    }
    try {
      const result = await this.run(command);
      await this.answer(command, { ok: true, result });
    } catch (err) {
      if (!(err instanceof AppError)) {
        this.deps.log.error({ err, commandId: command.id, kind: command.kind }, 'command failed');
      }
      await this.answer(command, { ok: false, error: problemOf(err) });
    }
  }

  private async run(command: Command): Promise<unknown> {
    switch (command.kind) {
      case 'actuate': {
        const args = parseArgs(ActuateArgs, command.args);
        this.deps.log.info(
          { commandId: command.id, gateId: args.gateId, by: args.requestedBy.name },
          'gate actuation from the cloud',
        );
        const actuation = await this.deps.hardware.actuate(args.gateId, {
          requestedBy: args.requestedBy.name,
          requestedVia: 'cloud',
          reason: args.reason,
          // Checked again right before the relay pulses: the last moment to refuse.
          guard: () => this.expiry(command),
        });
        this.stats.ran += 1;
        return actuation;
      }
      case 'snapshot': {
        const args = parseArgs(SnapshotArgs, command.args);
        const { snapshot, attachmentId } = await this.deps.cameras.snapshotFor(
          args.cameraId,
          args.requestedBy,
          { store: args.store },
        );
        this.stats.ran += 1;
        const result: SnapshotResult = {
          contentType: snapshot.contentType,
          base64: snapshot.bytes.toString('base64'),
          bytes: snapshot.bytes.length,
          elapsedMs: snapshot.elapsedMs,
          attachmentId,
          takenAt: toIso(this.deps.clock.now()),
        };
        return result;
      }
      default:
        throw new BadRequestError('unknown-command', `This edge does not run ${command.kind} commands.`);
    }
  }

  /** The 504 command-expired to answer when the command is past its deadline (see the file comment). */
  private expiry(command: Command): AppError | undefined {
    const cloudNow = this.cloudClock.atLeast(this.monotonic());
    const wallNow = this.deps.clock.now();
    const lateByDelivery = cloudNow === undefined ? 0 : cloudNow - command.deadline;
    const lateByWall = wallNow - command.deadline;
    if (lateByDelivery <= 0 && lateByWall <= MAX_CLOCK_SKEW_MS) return undefined;
    const ageSec = Math.round(Math.max(lateByDelivery, 0) / 1000);
    this.deps.log.warn(
      { commandId: command.id, kind: command.kind, lateByDelivery, lateByWall },
      lateByDelivery > 0
        ? 'command expired before it could run; not run'
        : 'command expired by this edge clock (more than 5 min past its deadline; is NTP working?); not run',
    );
    return new AppError(
      504,
      'command-expired',
      'Command expired',
      `The command reached this site after its deadline${ageSec > 0 ? ` (${ageSec} s late)` : ''}; it was not run and will not run later.`,
    );
  }

  private async answer(
    command: Command,
    reply: Pick<CommandResult, 'ok' | 'result' | 'error'>,
  ): Promise<void> {
    const message: CommandResult = { v: PROTOCOL_V, id: command.id, ...reply };
    if (!this.transport.connected) {
      this.deps.log.warn({ commandId: command.id, ok: reply.ok }, 'link down; command result not sent');
      return;
    }
    try {
      // QoS 1: a lost answer to an opened gate is a 504 for a gate that did open.
      await this.transport.publish(
        commandResultTopic(this.deps.config.siteId, command.replyTo),
        JSON.stringify(message),
        {
          qos: 1,
        },
      );
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message, commandId: command.id }, 'command result not sent');
    }
  }

  private remember(id: string, now: number): void {
    for (const [old, at] of this.seen) {
      if (this.seen.size < MAX_SEEN && now - at < SEEN_MEMORY_MS) break;
      this.seen.delete(old);
    }
    this.seen.set(id, now);
  }
}
