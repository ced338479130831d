import { realpathSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { pathToFileURL } from 'node:url';
import type { Express } from 'express';
import { type Config, ConfigError, loadConfig } from './config.js';
import type { Logger } from './log.js';
import { redirectToHttps } from './net/https-redirect.js';
import type { TlsCredentials } from './net/tls-server.js';

/** What both entry points (edge/main.ts, cloud/main.ts) share: config errors, HTTP, signals. */

export function loadConfigOrExit(overrides: Record<string, unknown> = {}): Config {
  try {
    return loadConfig(process.env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${err.message}\nSet the variables above (see docs/configuration.md) and start again.`);
      process.exit(2);
    }
    throw err;
  }
}

/** The listening API server, and the plain-HTTP server that only redirects to it (when configured). */
export interface HttpListeners {
  server: Server;
  /** A URL a person on this machine can open (https:// when TLS is configured). */
  url: string;
  redirect?: { server: Server; url: string } | undefined;
  /** Serves new certificate files from the next handshake on (connections open keep theirs). */
  reloadTls?: ((tls: TlsCredentials) => void) | undefined;
}

/**
 * Listens on config.http: HTTPS when `tls` (readTlsCredentials) is given, else plain HTTP; with
 * TLS and tls.httpRedirectPort, also a plain-HTTP server on that port that only redirects to HTTPS.
 */
export async function listenHttp(app: Express, config: Config, tls?: TlsCredentials): Promise<HttpListeners> {
  if (!tls) {
    const server = createHttpServer(app);
    const port = await listen(server, config.http.port, config.http.host);
    return { server, url: `http://${displayHost(config)}:${port}` };
  }
  const server = createHttpsServer({ cert: tls.cert, key: tls.key }, app);
  const port = await listen(server, config.http.port, config.http.host);
  const url = `https://${displayHost(config)}:${port}`;
  // The redirect checks hosts against the certificate being served, also after a reload.
  let leaf = tls.leaf;
  const reloadTls = (next: TlsCredentials) => {
    server.setSecureContext({ cert: next.cert, key: next.key });
    leaf = next.leaf;
  };
  if (config.tls.httpRedirectPort === undefined) return { server, url, reloadTls };
  const redirect = createHttpServer(redirectToHttps(() => leaf, port));
  try {
    const redirectPort = await listen(redirect, config.tls.httpRedirectPort, config.http.host);
    return {
      server,
      url,
      reloadTls,
      redirect: { server: redirect, url: `http://${displayHost(config)}:${redirectPort}` },
    };
  } catch (err) {
    await closeServer(server);
    throw err;
  }
}

function displayHost(config: Config): string {
  return config.http.host === '0.0.0.0' || config.http.host === '::' ? 'localhost' : config.http.host;
}

/** Closes what listenHttp opened (closeServer on each). */
export async function closeHttp(listeners: HttpListeners): Promise<void> {
  await Promise.all([
    closeServer(listeners.server),
    listeners.redirect && closeServer(listeners.redirect.server),
  ]);
}

/** Resolves with the port once listening; a listen error (a port in use) rejects: a failed start. */
function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      const address = server.address();
      ok(typeof address === 'object' && address ? address.port : port);
    });
  });
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
  /** Rereads the HTTPS certificate and key (SIGHUP); only when the process serves HTTPS. */
  reloadCertificate?: (() => void) | undefined;
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
  // SIGHUP would otherwise end the process: it is taken over only where it has a job.
  if (running.reloadCertificate) process.on('SIGHUP', () => running.reloadCertificate?.());
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
 * Whether the module at `moduleUrl` is the script node was started with. Compared by real path: a
 * module's URL is its resolved file, and an installed release is started through a symlink
 * (/opt/yard/current/...). Under pm2 (fork mode) argv[1] is pm2's own loader, which imports the
 * script it names in pm_exec_path: that script is the entry point too.
 */
export function isEntryPoint(moduleUrl: string): boolean {
  const scripts = [process.argv[1], process.env.pm_exec_path].filter((path): path is string => !!path);
  return scripts.some((path) => moduleUrl === pathToFileURL(realPathOr(path)).href);
}

/**
 * Runs `main` when the module at `moduleUrl` is the script node was started with (not when a test or
 * the demo imports it); a start that fails prints why and exits 1.
 */
export function runAsEntryPoint(moduleUrl: string, main: () => Promise<void>): void {
  if (!isEntryPoint(moduleUrl)) return;
  main().catch((err: unknown) => {
    console.error(startFailure(err));
    // Like loadConfigOrExit: 2 is "fix the configuration", 1 anything else.
    process.exit(configErrorOf(err) ? 2 : 1);
  });
}

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
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
    return `Port in use: ${err.message}. Set YARD_HTTP_PORT (or YARD_HTTP_REDIRECT_PORT for the redirect, YARD_MQTT_PORT for the embedded broker) to a free port.`;
  }
  const configError = configErrorOf(err);
  if (configError)
    return `${configError.message}\nFix the files or variables above (see docs/configuration.md) and start again.`;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** The ConfigError behind a failed start, if that is what it was (a StartError wraps its cause). */
function configErrorOf(err: unknown): ConfigError | undefined {
  if (err instanceof ConfigError) return err;
  return err instanceof Error && err.cause instanceof ConfigError ? err.cause : undefined;
}
