import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(options: { level: string; pretty?: boolean; name?: string }): Logger {
  const pretty = options.pretty ?? process.stdout.isTTY;
  return pino({
    name: options.name ?? 'yard',
    level: options.level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        '*.password',
        '*.pin',
        '*.secret',
        '*.apiKey',
        '*.clientSecret',
        '*.token',
      ],
      censor: '***',
    },
    transport: pretty
      ? { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } }
      : undefined,
  });
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
