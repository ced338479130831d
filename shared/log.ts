import { type Logger, type LoggerOptions, pino } from 'pino';
import { NonBlockingOutput } from './log-output.js';

export type { Logger };

/**
 * The process's logger. Pretty (a terminal): pino-pretty. Otherwise JSON lines on stdout through
 * NonBlockingOutput, so a stalled or vanished reader of stdout never blocks the process or its exit.
 */
export function createLogger(options: { level: string; pretty?: boolean; name?: string }): Logger {
  const pretty = options.pretty ?? process.stdout.isTTY;
  const common: LoggerOptions = {
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
  };
  if (!pretty) return pino(common, new NonBlockingOutput(1));
  return pino({
    ...common,
    transport: {
      target: 'pino-pretty',
      options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
    },
  });
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
