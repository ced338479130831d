import type { Server } from 'node:http';
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
    const s = app.listen(config.http.port, config.http.host, () => ok(s));
    s.once('error', fail);
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

/** SIGTERM/SIGINT stop cleanly; a second signal exits at once. */
export function stopOnSignals(running: { stop(): Promise<void>; log: Logger }): void {
  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(1);
      signalled = true;
      running.stop().then(
        () => process.exit(0),
        (err) => {
          running.log.error({ err }, 'unclean shutdown');
          process.exit(1);
        },
      );
    });
  }
}

/** The message for a start that failed before anything ran. */
export function startFailure(err: unknown): string {
  if (err instanceof Error && 'code' in err && err.code === 'EADDRINUSE') {
    return `Port in use: ${err.message}. Set YARD_HTTP_PORT (or YARD_MQTT_PORT for the embedded broker) to a free port.`;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
