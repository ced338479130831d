import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import type { Express } from 'express';
import { type Config, ConfigError, loadConfig } from './config.js';
import type { Logger } from './log.js';

/** What both entry points (edge/main.ts, cloud/main.ts) share: config errors, HTTP, signals. */

export function loadConfigOrExit(overrides: Record<string, unknown> = {}): Config {
  try {
    return loadConfig(process.env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${err.message}\nSet the variables above (see README, "Configuration") and start again.`);
      process.exit(2);
    }
    throw err;
  }
}

/** Listens on config.http; resolves with the server and a URL a person on this machine can open. */
export async function listenHttp(app: Express, config: Config): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((ok, fail) => {
    // Express 5 calls back with the listen error too (a port in use): that is a failed start.
    const s = app.listen(config.http.port, config.http.host, (err?: Error) => (err ? fail(err) : ok(s)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? 'localhost' : config.http.host;
  return { server, url: `http://${host}:${port}` };
}

/** Stop accepting, let in-flight requests finish (up to 5 s), then cut what is left (SSE streams). */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), 5_000);
  timer.unref();
  await closed;
  clearTimeout(timer);
}

/** What stopOnSignals stops. */
export interface Stoppable {
  stop(): Promise<void>;
  log: Logger;
  /**
   * Drives outputs to their safe state (the edge: every relay de-energised). Part of stop(); run on
   * its own when stop() hangs, so that even a forced exit leaves the gates safe.
   */
  safeState?: () => Promise<void>;
}

/** A stop that takes longer than this is cut short (outputs driven safe, then exit 1). */
const STOP_DEADLINE_MS = 10_000;
/** Time for the safe state on a forced exit. */
const SAFE_STATE_MS = 2_000;
/** Time for the last log lines to get out before exiting (a stalled log reader gets no more). */
const LOG_FLUSH_MS = 1_000;

/**
 * SIGTERM/SIGINT stop cleanly and exit 0. A second signal, or a stop still running after 10 s,
 * forces the exit (1) after driving outputs safe (at most 2 s). A third signal exits at once.
 * Logging never holds the exit up: the log output never blocks (shared/log-output.ts) and gets at
 * most a second to flush, and errors on stdout/stderr (EPIPE: their reader has gone) are ignored.
 */
export function stopOnSignals(running: Stoppable, options: { deadlineMs?: number } = {}): void {
  ignoreStdioErrors();
  let signals = 0;
  let forcing = false;
  const force = (why: string) => {
    if (forcing) return;
    forcing = true;
    running.log.error({ why }, 'stop did not finish: driving outputs safe and exiting');
    const safe = running.safeState?.().catch((err: unknown) => {
      running.log.error({ err }, 'driving outputs safe failed');
    });
    void within(safe, SAFE_STATE_MS)
      .then(() => flushLog(running.log, 200))
      .finally(() => process.exit(1));
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      signals += 1;
      if (signals > 2) process.exit(1);
      if (signals === 2) {
        force(`second ${signal}`);
        return;
      }
      const deadlineMs = options.deadlineMs ?? STOP_DEADLINE_MS;
      // Not unref'd: it is what ends a stop that hangs on something else keeping the process alive.
      const deadline = setTimeout(() => force(`still stopping after ${deadlineMs / 1000} s`), deadlineMs);
      const exit = (code: number) => {
        clearTimeout(deadline);
        void flushLog(running.log, LOG_FLUSH_MS).finally(() => process.exit(code));
      };
      running.stop().then(
        () => exit(0),
        (err: unknown) => {
          running.log.error({ err }, 'unclean shutdown');
          exit(1);
        },
      );
    });
  }
}

/** Errors writing to stdout/stderr (EPIPE once their reader exits) must not crash or stop anything. */
function ignoreStdioErrors(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

/** Waits for the logger's queued lines, at most `ms`. */
function flushLog(log: Logger, ms: number): Promise<void> {
  return within(new Promise<void>((resolve) => log.flush(() => resolve())), ms);
}

function within(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!work) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    work.then(done, done);
  });
}

/**
 * Runs `main` when the module at `moduleUrl` is the script node was started with (not when a test or
 * the demo imports it); a start that fails prints why and exits 1.
 */
export function runAsEntryPoint(moduleUrl: string, main: () => Promise<void>): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  main().catch((err: unknown) => {
    console.error(startFailure(err));
    process.exit(1);
  });
}

/** Shows the generated first admin's password once, on the console (not in the log). */
export function printGeneratedAdmin(admin: { username: string; password: string } | undefined): void {
  if (!admin) return;
  console.log(
    `\nFirst start: created admin "${admin.username}" with one-time password: ${admin.password}\n` +
      'It is shown only now. Log in and change it (PATCH /api/user/{id}), or set YARD_ADMIN_PASSWORD before the first start.\n',
  );
}

/** The message for a start that failed (what had started is stopped by then: shared/lifecycle.ts). */
export function startFailure(err: unknown): string {
  if (err instanceof Error && 'code' in err && err.code === 'EADDRINUSE') {
    return `Port in use: ${err.message}. Set YARD_HTTP_PORT (or YARD_MQTT_PORT for the embedded broker) to a free port.`;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
