import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** Where Debian's `postgresql-NN` packages put their server binaries, one folder per major version. */
export const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';
/** The OS user Debian's package creates; initdb and the server refuse to run as root. */
const SERVER_USER = 'postgres';
/** Temporary clusters live in `<tmpdir>/yard-pg-*`; `owner.pid` names the process that started one. */
const TEMP_PREFIX = 'yard-pg-';
const OWNER_FILE = 'owner.pid';

/**
 * Settings for a throwaway test server: durability off (the data is deleted afterwards anyway), enough
 * connections for parallel test files each with their own pools, memory kept small. A benchmark that
 * wants production-like figures passes `settings` (e.g. fsync and synchronous_commit back on).
 */
const TEST_SETTINGS: Record<string, string> = {
  listen_addresses: "'127.0.0.1'",
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '300',
  shared_buffers: '64MB',
  max_wal_size: '1GB',
  log_min_messages: 'warning',
};

export interface PostgresBinaries {
  dir: string;
  /** The major version, from the folder name (e.g. 15). */
  version: number;
}

export interface PostgresClusterOptions {
  /**
   * The folder to hold the cluster (data, socket, log); created when missing and kept after stop().
   * Without it a temporary folder is made and removed by stop().
   */
  dir?: string;
  /** Server binaries; the newest Debian version by default. */
  binaries?: PostgresBinaries;
  /** postgresql.conf settings over the test ones, values as that file spells them (strings in single quotes). */
  settings?: Record<string, string>;
}

/**
 * A PostgreSQL server of its own for tests and benchmarks: initdb into a folder, listening on a free
 * loopback port only (its unix socket inside the folder, so it never meets the Debian package's
 * cluster), trust auth on loopback, the superuser `postgres`. Started and stopped with pg_ctl; as root
 * both run as the `postgres` OS user.
 */
export class PostgresCluster {
  private stopped = false;
  /** pg_ctl detaches the server: a run ended by process.exit() (vitest on Ctrl+C) stops it here. */
  private readonly stopOnExit = () => this.stopNow();

  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly version: number,
    private readonly binDir: string,
    private readonly ownsDir: boolean,
  ) {
    process.once('exit', this.stopOnExit);
  }

  /** A superuser URL (database `postgres`) for pg.Pool({ connectionString }). */
  get adminUrl(): string {
    return `postgres://${SERVER_USER}@127.0.0.1:${this.port}/postgres`;
  }

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  get logFile(): string {
    return join(this.dir, 'server.log');
  }

  /** The newest server binaries Debian installed, or undefined when there are none. */
  static findBinaries(root = DEBIAN_POSTGRES_ROOT): PostgresBinaries | undefined {
    if (!existsSync(root)) return undefined;
    const found = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .map((name) => ({ dir: join(root, name, 'bin'), version: Number(name) }))
      .filter((b) => existsSync(join(b.dir, 'initdb')) && existsSync(join(b.dir, 'pg_ctl')))
      .sort((a, b) => b.version - a.version);
    return found[0];
  }

  static async start(o: PostgresClusterOptions = {}): Promise<PostgresCluster> {
    const binaries = o.binaries ?? PostgresCluster.findBinaries();
    if (!binaries) {
      throw new Error(
        `no PostgreSQL server binaries under ${DEBIAN_POSTGRES_ROOT}/*/bin: install Debian's postgresql package`,
      );
    }
    await removeOrphans();
    const ownsDir = o.dir === undefined;
    const dir = o.dir ?? (await mkdtemp(join(tmpdir(), TEMP_PREFIX)));
    try {
      await mkdir(dir, { recursive: true });
      if (ownsDir) await writeFile(join(dir, OWNER_FILE), `${process.pid}\n`);
      if (isRoot()) await run('chown', [`${SERVER_USER}:`, dir]);
      const data = join(dir, 'data');
      await asServerUser(join(binaries.dir, 'initdb'), [
        ...['-D', data, '-U', SERVER_USER, '-A', 'trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
      ]);
      await writeFile(
        join(data, 'pg_hba.conf'),
        [
          '# Test cluster: trust on the unix socket (inside the cluster folder) and loopback only.',
          'local all all trust',
          'host all all 127.0.0.1/32 trust',
          'host all all ::1/128 trust',
          '',
        ].join('\n'),
      );
      const settings = { ...TEST_SETTINGS, ...o.settings, unix_socket_directories: `'${dir}'` };
      await appendFile(
        join(data, 'postgresql.conf'),
        `\n# yard test cluster\n${Object.entries(settings)
          .map(([k, v]) => `${k} = ${v}`)
          .join('\n')}\n`,
      );
      const port = await startOnFreePort(binaries.dir, data, join(dir, 'server.log'));
      return new PostgresCluster(dir, port, binaries.version, binaries.dir, ownsDir);
    } catch (e) {
      if (ownsDir) await rm(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** Stops the server (immediately: nothing in it is kept) and removes the folder if start() made it. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    process.off('exit', this.stopOnExit);
    await stopServer(this.binDir, this.dataDir, this.stopMode);
    if (this.ownsDir) await rm(this.dir, { recursive: true, force: true });
  }

  /** stop() for a process that is exiting (no event loop left). */
  private stopNow(): void {
    if (this.stopped) return;
    this.stopped = true;
    try {
      if (existsSync(join(this.dataDir, 'postmaster.pid'))) {
        const [file, argv] = asServerUserArgs(
          join(this.binDir, 'pg_ctl'),
          stopArgs(this.dataDir, this.stopMode),
        );
        execFileSync(file, argv, { cwd: tmpdir(), stdio: 'ignore' });
      }
      if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // Exiting anyway; the next start removes what is left (removeOrphans).
    }
  }

  private get stopMode(): 'immediate' | 'fast' {
    return this.ownsDir ? 'immediate' : 'fast';
  }
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** initdb and postgres refuse to run as root: then run them as Debian's `postgres` user. */
function asServerUserArgs(command: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', SERVER_USER, '--', command, ...args]] : [command, args];
}

async function asServerUser(command: string, args: string[]): Promise<string> {
  const [file, argv] = asServerUserArgs(command, args);
  try {
    // A neutral working directory: the server user may not be allowed into the caller's.
    const { stdout } = await run(file, argv, { cwd: tmpdir(), env: { ...process.env, LC_ALL: 'C' } });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${command.split('/').pop()} failed: ${err.stderr || err.stdout || err.message}`);
  }
}

/** A port is free when we can listen on it; another process may take it before the server does (retried). */
async function startOnFreePort(binDir: string, data: string, log: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      await asServerUser(join(binDir, 'pg_ctl'), [
        ...['-D', data, '-l', log, '-w', '-t', '30', '-o', `-p ${port}`, 'start'],
      ]);
      return port;
    } catch (e) {
      const output = await readFile(log, 'utf8').catch(() => '');
      if (attempt < 3 && /could not bind|Address already in use/.test(output)) continue;
      throw new Error(`${(e as Error).message}\nserver log:\n${output.slice(-4_000)}`);
    }
  }
}

async function stopServer(binDir: string, data: string, mode: 'immediate' | 'fast'): Promise<void> {
  if (!existsSync(join(data, 'postmaster.pid'))) return;
  await asServerUser(join(binDir, 'pg_ctl'), stopArgs(data, mode));
}

function stopArgs(data: string, mode: 'immediate' | 'fast'): string[] {
  return ['-D', data, '-m', mode, '-w', 'stop'];
}

/**
 * pg_ctl detaches the server from the test run, so a run that is killed (Ctrl+C, SIGKILL) leaves it
 * behind: stop and remove temporary clusters whose owner process is gone.
 */
async function removeOrphans(): Promise<void> {
  const binaries = PostgresCluster.findBinaries();
  const ours = new RegExp(`^${TEMP_PREFIX}[A-Za-z0-9]{6}$`); // mkdtemp's six characters, nothing else
  for (const name of readdirSync(tmpdir()).filter((n) => ours.test(n))) {
    const dir = join(tmpdir(), name);
    const owner = Number((await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    // Best effort: a folder we may not stop or remove (another user's) is left alone.
    if (binaries) await stopServer(binaries.dir, join(dir, 'data'), 'immediate').catch(() => {});
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
