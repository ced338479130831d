import { type ChildProcess, spawn } from 'node:child_process';
import Database from 'better-sqlite3';

export { freePort } from './ports.js';

/**
 * The cloud and the edge as real processes (`node --import tsx cloud/main.ts`, the same as
 * `npm run cloud` / `npm run edge` without npm in between): started from environment variables,
 * killed with SIGKILL or stopped with SIGTERM, started again on the same data directory and port.
 */
export class AppProcess {
  private child: ChildProcess | undefined;
  private output = '';
  exits: Array<{ code: number | null; signal: NodeJS.Signals | null }> = [];

  constructor(
    readonly name: string,
    private readonly script: 'cloud/main.ts' | 'edge/main.ts',
    readonly port: number,
    private readonly env: Record<string, string>,
    /** Node's own flags before the script (a benchmark's --cpu-prof). */
    private readonly nodeFlags: string[] = [],
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Recent output of the process (warnings and errors; for failure messages). */
  get log(): string {
    return this.output.slice(-6_000);
  }

  /** Starts the process and waits until /readyz answers 200. */
  async start(): Promise<void> {
    if (this.alive) throw new Error(`${this.name} is already running`);
    const child = spawn(process.execPath, [...this.nodeFlags, '--import', 'tsx', this.script], {
      env: {
        ...process.env,
        ...this.env,
        YARD_HTTP_PORT: String(this.port),
        YARD_HTTP_HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-50_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => this.exits.push({ code, signal }));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (!this.alive) throw new Error(`${this.name} exited while starting:\n${this.log}`);
      try {
        if ((await fetch(`${this.url}/readyz`)).status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${this.name} not ready in 30 s:\n${this.log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGKILL: the process dies wherever it is (in the middle of a transaction, a batch, a publish). */
  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  /** SIGTERM: a clean stop. Resolves with the exit code. */
  async stop(): Promise<number | null> {
    await this.signal('SIGTERM');
    return this.exits.at(-1)?.code ?? null;
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}

/**
 * Reads a running process's database file through a read-only connection (WAL: it sees the
 * committed transactions, the writer is not disturbed).
 */
export function readDb<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return read(db);
  } finally {
    db.close();
  }
}
