import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';

export const MOSQUITTO = '/usr/sbin/mosquitto';
export const MOSQUITTO_PASSWD = '/usr/bin/mosquitto_passwd';
export const mosquittoInstalled = existsSync(MOSQUITTO) && existsSync(MOSQUITTO_PASSWD);

const DEPLOY = resolve('deploy/mosquitto');
/** Lines of the deploy config that belong to its TLS listener (this starter listens on loopback only). */
const TLS_LINE = /^(listener 8883|certfile|keyfile|cafile|tls_version|require_certificate)\b/;

/**
 * Debian's Mosquitto as a child process, configured from deploy/mosquitto/mosquitto.conf and its
 * ACL: same password file rules, ACL and persistence, but one plain listener on a loopback port
 * instead of the TLS one, and everything else under `dir`. Can be stopped (SIGTERM: it saves its
 * persistence file), killed (SIGKILL) and started again on the same port and store.
 */
export class MosquittoProcess {
  private child: ChildProcess | undefined;
  private output = '';

  constructor(private readonly o: { dir: string; port: number; passwdFile: string }) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The broker's recent output (for failure messages). */
  get log(): string {
    return this.output.slice(-4_000);
  }

  writeConfig(): string {
    const store = join(this.o.dir, 'store');
    mkdirSync(store, { recursive: true });
    const lines = readFileSync(join(DEPLOY, 'mosquitto.conf'), 'utf8')
      .split('\n')
      .filter((line) => !TLS_LINE.test(line))
      .map((line) =>
        line
          .replace('/etc/mosquitto/passwd', this.o.passwdFile)
          .replace('/etc/mosquitto/acl', join(DEPLOY, 'acl'))
          .replace('/var/lib/mosquitto/', `${store}/`)
          .replace('/run/mosquitto/mosquitto.pid', join(this.o.dir, 'mosquitto.pid'))
          .replace('log_dest file /var/log/mosquitto/mosquitto.log', 'log_dest stderr'),
      );
    const unmapped = lines.filter((line) => !line.startsWith('#') && /\/(etc|var|run)\//.test(line));
    if (unmapped.length > 0)
      throw new Error(`deploy config has paths this starter does not map: ${unmapped}`);
    // As root Mosquitto would switch to the mosquitto user, who cannot read the test's files.
    lines.push(
      `listener ${this.o.port} 127.0.0.1`,
      `user ${process.getuid?.() === 0 ? 'root' : 'mosquitto'}`,
    );
    const file = join(this.o.dir, 'mosquitto.conf');
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }

  async start(): Promise<void> {
    const config = this.writeConfig();
    const child = spawn(MOSQUITTO, ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 10_000;
    while (!(await accepts(this.o.port))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`mosquitto did not start (exit ${child.exitCode}):\n${this.log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGTERM: Mosquitto saves its persistence file on a clean exit. */
  stop(): Promise<void> {
    return this.signal('SIGTERM');
  }

  /** SIGKILL: sessions and retained messages since the last autosave are lost. */
  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}

export function accepts(port: number): Promise<boolean> {
  return new Promise((r) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      r(true);
    });
    socket.once('error', () => r(false));
  });
}
