import { type Logger, pino } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A logger that keeps every line it writes (parsed), for tests that check what is logged. */
export function captureLog(level = 'debug'): { log: Logger; lines: LogLine[]; warnings: () => LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { log, lines, warnings: () => lines.filter((l) => l.level === 40) };
}
