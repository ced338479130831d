import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMosquittoPassword } from '../../shared/sync/mosquitto-password.js';
import { freePort } from '../helpers/ports.js';
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * deploy/cloud/install.sh and deploy/edge/install.sh run against throwaway roots (--root): the
 * users, groups, files, modes and units they write; a second run changes nothing; and what they
 * installed runs. As a site technician would: the installed cloud starts from its pm2 process file
 * as its service user, `site:add` of the installed release provisions a site (its Mosquitto line
 * in the installed password file), the edge installs from that file and starts from its pm2
 * process file, and the cloud sees the site online through a real Mosquitto that uses the
 * installed password file and ACL.
 *
 * Needs root (users and owners; CI runs as root), mosquitto and setpriv.
 */
const MOSQUITTO = '/usr/sbin/mosquitto';
const LOGROTATE = '/usr/sbin/logrotate';
if (!existsSync(LOGROTATE))
  console.warn(`SKIPPED: the log rotation check needs ${LOGROTATE} (.ci/run installs it).`);
const runnable =
  process.getuid?.() === 0 &&
  existsSync(MOSQUITTO) &&
  existsSync('/usr/bin/setpriv') &&
  existsSync('/usr/sbin/useradd');
if (!runnable)
  console.warn('SKIPPED: the install scripts need root, mosquitto, setpriv and useradd (CI has them all).');

const work = mkdtempSync(join(tmpdir(), 'yard-install-'));
// The service user (by its ids in the throwaway roots) must reach the roots' files.
chmodSync(work, 0o755);
const cloudRoot = join(work, 'cloud-root');
const edgeRoot = join(work, 'edge-root');
const siteFiles = join(work, 'site-files');
const ports = { cloud: 0, edge: 0, mqtt: 0 };
const started: Array<() => void> = [];

/** Runs an install script; its output, or the error with everything it said. */
function install(role: 'edge' | 'cloud', args: string[]): string {
  const run = spawnSync('bash', [`deploy/${role}/install.sh`, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0)
    throw new Error(`${role} install.sh exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

/** Every path under `root` with its kind, mode, owner and content digest (or link target). */
function listing(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const st = lstatSync(path);
      const head = `${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
      const rel = path.slice(root.length);
      if (st.isSymbolicLink()) out[rel] = `link ${head} -> ${readlinkSync(path)}`;
      else if (st.isDirectory()) {
        out[rel] = `dir ${head}`;
        walk(path);
      } else out[rel] = `file ${head} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    }
  };
  walk(root);
  return out;
}

/** A line of root/etc/passwd or root/etc/group, split into its fields. */
function account(root: string, file: 'passwd' | 'group', name: string): string[] | undefined {
  const line = readFileSync(join(root, 'etc', file), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  return line?.split(':');
}

function ids(root: string) {
  const user = account(root, 'passwd', 'yard')!;
  return { uid: Number(user[2]), gid: Number(user[3]) };
}

/** "mode uid:gid" of a path in a root. */
function modeOwner(root: string, path: string): string {
  const st = statSync(join(root, path));
  return `${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
}

/** Runs a command as the root's service user, with the unit's umask (what systemd does). */
function asYard(root: string, command: string[], env: Record<string, string> = {}) {
  const { uid, gid } = ids(root);
  return spawnSync(
    'setpriv',
    [
      `--reuid=${uid}`,
      `--regid=${gid}`,
      '--clear-groups',
      '--',
      'sh',
      '-c',
      'umask 027; exec "$@"',
      'sh',
      ...command,
    ],
    { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 },
  );
}

/** pm2 of the installed release, as the service user, with its home in the test's folder. */
function pm2(root: string, ...args: string[]) {
  const home = join(root, '..', `${root.endsWith('cloud-root') ? 'cloud' : 'edge'}-pm2`);
  if (!existsSync(home)) {
    mkdirSync(home);
    chownSync(home, ids(root).uid, ids(root).gid);
  }
  const run = asYard(root, [join(root, 'opt/yard/current/node_modules/.bin/pm2'), ...args], {
    PM2_HOME: home,
    HOME: home,
  });
  if (run.status !== 0) throw new Error(`pm2 ${args.join(' ')}: ${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

/** /readyz once it answers 200; the app's and pm2's logs when it does not. */
async function ready(
  port: number,
  root: string,
): Promise<{ status: string; role: string; siteId: string; checks: any }> {
  const logs = () =>
    ['var/log/yard', `../${root.endsWith('cloud-root') ? 'cloud' : 'edge'}-pm2`]
      .flatMap((dir) => {
        const path = join(root, dir);
        return existsSync(path)
          ? readdirSync(path)
              .filter((f) => f.endsWith('.log'))
              .map((f) => join(path, f))
          : [];
      })
      .map((file) => `${file}:\n${readFileSync(file, 'utf8').slice(-2000)}`)
      .join('\n');
  return waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res?.status === 200 ? ((await res.json()) as any) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: () => `readyz 200 on ${port}; logs:\n${logs()}` },
  );
}

beforeAll(async () => {
  if (!runnable) return;
  // The scripts install a built checkout: build it from the sources under test (the web apps are
  // built by npm ci, which the system tests need anyway).
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  ports.cloud = await freePort();
  ports.edge = await freePort();
  ports.mqtt = await freePort();
}, 180_000);

afterAll(() => {
  for (const stop of started.reverse()) {
    try {
      stop();
    } catch {
      // already stopped
    }
  }
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!runnable)('install scripts in a throwaway root', { timeout: 240_000 }, () => {
  let broker: ChildProcess | undefined;

  it('the cloud: its user, config 0600, Mosquitto files, nginx example, pm2 file and unit', () => {
    const out = install('cloud', [
      '--root',
      cloudRoot,
      '--http-port',
      String(ports.cloud),
      '--mqtt-url',
      `mqtt://127.0.0.1:${ports.mqtt}`,
      '--server-name',
      'yard-cloud.example.org',
    ]);
    expect(out).toContain('changed  group mosquitto');
    const yard = account(cloudRoot, 'passwd', 'yard')!;
    expect(yard[5]).toBe('/var/lib/yard');
    expect(yard[6]).toBe('/usr/sbin/nologin');
    const { uid, gid } = ids(cloudRoot);
    const mosquittoGid = Number(account(cloudRoot, 'group', 'mosquitto')![2]);
    // Under --root the user exists only in the throwaway root.
    expect(spawnSync('getent', ['passwd', 'yard']).status === 0 ? 'on this machine' : 'not here').toBe(
      'not here',
    );

    expect(modeOwner(cloudRoot, 'etc/yard')).toBe(`750 0:${gid}`);
    expect(modeOwner(cloudRoot, 'etc/yard/cloud.json')).toBe(`600 ${uid}:${gid}`);
    expect(modeOwner(cloudRoot, 'var/lib/yard')).toBe(`700 ${uid}:${gid}`);
    expect(modeOwner(cloudRoot, 'var/log/yard')).toBe(`750 ${uid}:${gid}`);
    expect(modeOwner(cloudRoot, 'etc/mosquitto/yard')).toBe(`2750 ${uid}:${mosquittoGid}`);
    expect(modeOwner(cloudRoot, 'etc/mosquitto/yard/passwd')).toBe(`640 ${uid}:${mosquittoGid}`);

    const config = JSON.parse(readFileSync(join(cloudRoot, 'etc/yard/cloud.json'), 'utf8'));
    expect(config).toMatchObject({
      role: 'cloud',
      http: { host: '127.0.0.1', port: ports.cloud, trustProxy: 1 },
      mqtt: { url: `mqtt://127.0.0.1:${ports.mqtt}`, username: 'cloud' },
    });
    expect(config.database).toBeUndefined(); // SQLite unless --database-url
    // The password file has the cloud's user with the config's password.
    const line = readFileSync(join(cloudRoot, 'etc/mosquitto/yard/passwd'), 'utf8').trim();
    expect(line.startsWith('cloud:')).toBe(true);
    expect(verifyMosquittoPassword(config.mqtt.password, line.slice('cloud:'.length))).toBe(true);

    const conf = readFileSync(join(cloudRoot, 'etc/mosquitto/mosquitto.conf'), 'utf8');
    expect(conf).toMatch(/^password_file \/etc\/mosquitto\/yard\/passwd$/m);
    expect(conf).toMatch(/^acl_file \/etc\/mosquitto\/acl$/m);
    expect(conf).toMatch(/^allow_anonymous false$/m);
    expect(conf).not.toMatch(/^listener 1883/m); // the cloud reaches the broker elsewhere (--mqtt-url)
    expect(readFileSync(join(cloudRoot, 'etc/mosquitto/acl'), 'utf8')).toBe(
      readFileSync('deploy/mosquitto/acl', 'utf8'),
    );
    const nginx = readFileSync(join(cloudRoot, 'etc/nginx/sites-available/yard-cloud'), 'utf8');
    expect(nginx).toContain(`server 127.0.0.1:${ports.cloud} `);
    expect(nginx).toMatch(/server_name yard-cloud\.example\.org;/);
    expect(nginx).not.toContain('10.0.0.');

    const unit = readFileSync(join(cloudRoot, 'etc/systemd/system/yard-cloud.service'), 'utf8');
    expect(unit).toMatch(/^User=yard$/m);
    expect(unit).toMatch(/^UMask=0027$/m);
    expect(unit).toMatch(/^Environment=PM2_HOME=\/var\/lib\/yard\/\.pm2$/m);
    expect(unit).toMatch(
      /^ExecStart=\/opt\/yard\/current\/node_modules\/\.bin\/pm2 start \/etc\/yard\/cloud\.config\.cjs$/m,
    );
    expect(unit).toMatch(/^ExecStop=\/opt\/yard\/current\/node_modules\/\.bin\/pm2 kill$/m);
    expect(
      readlinkSync(join(cloudRoot, 'etc/systemd/system/multi-user.target.wants/yard-cloud.service')),
    ).toBe('/etc/systemd/system/yard-cloud.service');
    expect(modeOwner(cloudRoot, 'etc/yard/cloud.config.cjs')).toBe(`640 0:${gid}`);
    expect(readFileSync(join(cloudRoot, 'etc/logrotate.d/yard-cloud'), 'utf8')).toMatch(
      /^\/var\/log\/yard\/cloud\.log \/var\/log\/yard\/cloud\.error\.log .*\{[^}]*copytruncate[^}]*\}/ms,
    );
    // The release: production dependencies with pm2, no development tools.
    const release = readlinkSync(join(cloudRoot, 'opt/yard/current'));
    expect(release).toMatch(/^releases\/0\.\d+\.\d+-[0-9a-f]{12}$/);
    const app = join(cloudRoot, 'opt/yard', release);
    expect(existsSync(join(app, 'dist/cloud/main.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/.bin/pm2'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/vitest'))).toBe(false);
    // The installer migrated the database as the service user: it exists, owner-only.
    expect(modeOwner(cloudRoot, 'var/lib/yard/yard.db')).toBe(`600 ${uid}:${gid}`);
  });

  it('the cloud: a second run changes nothing', () => {
    const before = listing(cloudRoot);
    const out = install('cloud', [
      '--root',
      cloudRoot,
      '--http-port',
      String(ports.cloud),
      '--mqtt-url',
      `mqtt://127.0.0.1:${ports.mqtt}`,
      '--server-name',
      'yard-cloud.example.org',
    ]);
    expect(out).toContain('Nothing to change');
    expect(out).not.toMatch(/^ {3}changed/m);
    expect(listing(cloudRoot)).toEqual(before);
  });

  it('the cloud starts from its pm2 file as its user, with Mosquitto on the installed password file and ACL', async () => {
    // Mosquitto with the installed password file and ACL on a loopback port (the installed
    // mosquitto.conf's other lines are system paths and a TLS listener; the ACL rules are what
    // matter here). It runs as root: the throwaway root's mosquitto group is not this machine's.
    const conf = join(work, 'mosquitto-test.conf');
    writeFileSync(
      conf,
      [
        'user root',
        'per_listener_settings false',
        'allow_anonymous false',
        `password_file ${join(cloudRoot, 'etc/mosquitto/yard/passwd')}`,
        `acl_file ${join(cloudRoot, 'etc/mosquitto/acl')}`,
        `listener ${ports.mqtt} 127.0.0.1`,
        'persistence false',
        'log_dest stderr',
        '',
      ].join('\n'),
    );
    broker = spawn(MOSQUITTO, ['-c', conf], { stdio: 'ignore' });
    started.push(() => broker?.kill('SIGTERM'));

    pm2(cloudRoot, 'start', join(cloudRoot, 'etc/yard/cloud.config.cjs'));
    started.push(() => pm2(cloudRoot, 'kill'));
    const body = await ready(ports.cloud, cloudRoot);
    expect(body).toMatchObject({ status: 'ready', role: 'cloud' });
    const { uid, gid } = ids(cloudRoot);
    expect(modeOwner(cloudRoot, 'var/lib/yard/yard.db')).toBe(`600 ${uid}:${gid}`);
    // Logs go where logrotate looks, readable by the service user's group only (UMask 0027).
    expect(modeOwner(cloudRoot, 'var/log/yard/cloud.log')).toBe(`640 ${uid}:${gid}`);
  });

  it('site:add of the installed release provisions a site into the installed Mosquitto password file', () => {
    mkdirSync(siteFiles);
    chownSync(siteFiles, ids(cloudRoot).uid, ids(cloudRoot).gid);
    const passwd = join(cloudRoot, 'etc/mosquitto/yard/passwd');
    const run = asYard(
      cloudRoot,
      [
        process.execPath,
        join(cloudRoot, 'opt/yard/current/dist/cloud/provision-site-cli.js'),
        'north-1',
        '--name',
        'North yard',
        '--mqtt-url',
        `mqtt://127.0.0.1:${ports.mqtt}`,
        '--cloud-url',
        `http://127.0.0.1:${ports.cloud}`,
        '--mosquitto-passwd',
        passwd,
        '--out',
        siteFiles,
      ],
      {
        YARD_CONFIG_FILE: join(cloudRoot, 'etc/yard/cloud.json'),
        YARD_DATA_DIR: join(cloudRoot, 'var/lib/yard'),
        YARD_LOG_LEVEL: 'warn',
      },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Created site north-1');
    const lines = readFileSync(passwd, 'utf8').trim().split('\n');
    expect(lines.map((l) => l.split(':')[0])).toEqual(['cloud', 'north-1']);
    // Still readable by Mosquitto's group (the setgid folder) and owned by the service user.
    const mosquittoGid = Number(account(cloudRoot, 'group', 'mosquitto')![2]);
    expect(modeOwner(cloudRoot, 'etc/mosquitto/yard/passwd')).toBe(
      `640 ${ids(cloudRoot).uid}:${mosquittoGid}`,
    );
    broker?.kill('SIGHUP'); // what `systemctl reload mosquitto` does: read the password file again
  });

  it('the edge: its user in gpio and dialout, config 0600 from site:add, data 0700, pm2 file, unit, udev rules', () => {
    const out = install('edge', [
      '--root',
      edgeRoot,
      '--config',
      join(siteFiles, 'north-1.edge.json'),
      '--http-port',
      String(ports.edge),
      '--relay',
      'gate1=1a86:7523',
      '--relay',
      'exit-gate=0403:6001:A10KZ3B1',
    ]);
    expect(out).toContain('changed  user yard');
    const { uid, gid } = ids(edgeRoot);
    for (const group of ['gpio', 'dialout']) expect(account(edgeRoot, 'group', group)![3]).toBe('yard');
    expect(account(edgeRoot, 'passwd', 'yard')![6]).toBe('/usr/sbin/nologin');

    expect(modeOwner(edgeRoot, 'etc/yard')).toBe(`750 0:${gid}`);
    expect(modeOwner(edgeRoot, 'etc/yard/edge.json')).toBe(`600 ${uid}:${gid}`);
    expect(modeOwner(edgeRoot, 'var/lib/yard')).toBe(`700 ${uid}:${gid}`);
    expect(modeOwner(edgeRoot, 'var/lib/yard/yard.db')).toBe(`600 ${uid}:${gid}`);
    // The file is site:add's, with the port asked for.
    const provisioned = JSON.parse(readFileSync(join(siteFiles, 'north-1.edge.json'), 'utf8'));
    expect(JSON.parse(readFileSync(join(edgeRoot, 'etc/yard/edge.json'), 'utf8'))).toEqual({
      ...provisioned,
      http: { port: ports.edge },
    });

    const rules = readFileSync(join(edgeRoot, 'etc/udev/rules.d/70-yard-relays.rules'), 'utf8');
    expect(rules).toContain(
      'SUBSYSTEM=="tty", ATTRS{idVendor}=="1a86", ATTRS{idProduct}=="7523", SYMLINK+="yard-relay-gate1", GROUP="dialout", MODE="0660"',
    );
    expect(rules).toContain(
      'SUBSYSTEM=="tty", ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6001", ATTRS{serial}=="A10KZ3B1", SYMLINK+="yard-relay-exit-gate", GROUP="dialout", MODE="0660"',
    );
    expect(rules).toContain('SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"');

    const unit = readFileSync(join(edgeRoot, 'etc/systemd/system/yard-edge.service'), 'utf8');
    expect(unit).toMatch(
      /^ExecStart=\/opt\/yard\/current\/node_modules\/\.bin\/pm2 start \/etc\/yard\/edge\.config\.cjs$/m,
    );
    expect(unit).toMatch(/^PIDFile=\/var\/lib\/yard\/\.pm2\/pm2\.pid$/m);
    expect(readFileSync(join(edgeRoot, 'etc/logrotate.d/yard-edge'), 'utf8')).toMatch(/copytruncate/);
    const ecosystem = readFileSync(join(edgeRoot, 'etc/yard/edge.config.cjs'), 'utf8');
    expect(ecosystem).toContain("YARD_CONFIG_FILE: at('/etc/yard/edge.json')");
    expect(ecosystem).toContain("YARD_DATA_DIR: at('/var/lib/yard')");
  });

  it('the edge: a second run changes nothing', () => {
    const before = listing(edgeRoot);
    const out = install('edge', [
      '--root',
      edgeRoot,
      '--config',
      join(siteFiles, 'north-1.edge.json'),
      '--http-port',
      String(ports.edge),
      '--relay',
      'gate1=1a86:7523',
      '--relay',
      'exit-gate=0403:6001:A10KZ3B1',
    ]);
    expect(out).toContain('Nothing to change');
    expect(listing(edgeRoot)).toEqual(before);
    // Without the options the installed config and rules are kept as they are.
    expect(install('edge', ['--root', edgeRoot])).toContain('Nothing to change');
    expect(listing(edgeRoot)).toEqual(before);
  });

  it('the edge starts from its pm2 file as its user, ready, and links to the installed cloud', async () => {
    pm2(edgeRoot, 'start', join(edgeRoot, 'etc/yard/edge.config.cjs'));
    started.push(() => pm2(edgeRoot, 'kill'));
    const body = await ready(ports.edge, edgeRoot);
    expect(body).toMatchObject({
      status: 'ready',
      role: 'edge',
      siteId: 'north-1',
      checks: { sync: { mode: 'linked' } },
    });
    const { uid, gid } = ids(edgeRoot);
    expect(modeOwner(edgeRoot, 'var/lib/yard/yard.db')).toBe(`600 ${uid}:${gid}`);

    // The cloud's first admin password is in its log (docs/cloud.md "Install the cloud"); with it, the
    // cloud shows the site online: the edge logged in to Mosquitto with site:add's credentials.
    // pm2 writes the console to the log on its own schedule: a busy machine may show it later.
    const password = await waitFor(
      () =>
        /one-time password: (\S+)/.exec(readFileSync(join(cloudRoot, 'var/log/yard/cloud.log'), 'utf8'))?.[1],
      { timeoutMs: 15_000, what: "the cloud's first admin password in its log", intervalMs: 200 },
    );
    const login = await fetch(`http://127.0.0.1:${ports.cloud}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    const site = await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${ports.cloud}/api/sync/status`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const status = (await res.json()) as { sites: Array<{ siteId: string; link: string }> };
        return status.sites.find((s) => s.siteId === 'north-1' && s.link === 'online');
      },
      { timeoutMs: 30_000, what: 'north-1 online at the cloud', intervalMs: 250 },
    );
    expect(site.link).toBe('online');
  });

  it.skipIf(!existsSync(LOGROTATE))(
    'logrotate rotates the live log, and pm2 goes on writing to it',
    async () => {
      const log = join(edgeRoot, 'var/log/yard/edge.log');
      const before = readFileSync(log, 'utf8');
      expect(before).toContain('edge ready');
      // The installed file with its paths in the throwaway root; `su root root` because its user
      // exists only there (logrotate looks names up on this machine).
      const conf = join(work, 'logrotate-edge.conf');
      writeFileSync(
        conf,
        readFileSync(join(edgeRoot, 'etc/logrotate.d/yard-edge'), 'utf8')
          .replaceAll(' /var/', ` ${edgeRoot}/var/`)
          .replace(/^\/var\//m, `${edgeRoot}/var/`)
          .replace('su yard yard', 'su root root'),
      );
      const run = spawnSync(LOGROTATE, ['--force', '--state', join(work, 'logrotate.state'), conf], {
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(readFileSync(`${log}.1`, 'utf8')).toBe(before);
      // copytruncate: pm2 keeps its file open and writes on at the start of the emptied file.
      await fetch(`http://127.0.0.1:${ports.edge}/api/nothing-here`);
      const after = await waitFor(() => readFileSync(log, 'utf8'), {
        timeoutMs: 10_000,
        what: 'a log line after rotation',
      });
      expect(after.startsWith('{')).toBe(true);
      expect(after.includes('edge ready')).toBe(false);
    },
  );

  it('an upgrade backs the database up, migrates, keeps the old release; --rollback restores both', async () => {
    pm2(edgeRoot, 'kill'); // what the unit's stop does (under --root the script touches no service)
    const before = readlinkSync(join(edgeRoot, 'opt/yard/current'));
    // The next release: the same checkout with one changed file in its build.
    const next = join(work, 'source-next');
    mkdirSync(next);
    for (const part of ['package.json', 'package-lock.json', 'dist', 'node_modules', 'deploy'])
      execFileSync('cp', ['-a', part, join(next, part)]);
    writeFileSync(
      join(next, 'dist/edge/main.js'),
      `${readFileSync(join(next, 'dist/edge/main.js'), 'utf8')}\n// the next release\n`,
    );

    const out = install('edge', ['--root', edgeRoot, '--source', next]);
    expect(out).toMatch(
      /changed {2}back up the database to .*\/var\/lib\/yard\/backups\/yard-\d{8}T\d{6}Z-before-/,
    );
    expect(out).toMatch(/changed {2}migrate the database with release/);
    const after = readlinkSync(join(edgeRoot, 'opt/yard/current'));
    expect(after).not.toBe(before);
    expect(readlinkSync(join(edgeRoot, 'opt/yard/previous'))).toBe(before);
    const backups = readdirSync(join(edgeRoot, 'var/lib/yard/backups'));
    expect(backups).toEqual([/yard-\d{8}T\d{6}Z-before-[\w.-]+?\.db/.exec(out)![0]]);
    const { uid, gid } = ids(edgeRoot);
    expect(modeOwner(edgeRoot, `var/lib/yard/backups/${backups[0]}`)).toBe(`600 ${uid}:${gid}`);

    // A change made under the new release, then the roll back: the database is the backup again,
    // and the database as it was is kept beside the backups.
    const db = join(edgeRoot, 'var/lib/yard/yard.db');
    const live = new Database(db);
    live.exec('CREATE TABLE after_upgrade (x); INSERT INTO after_upgrade VALUES (1);');
    live.close();
    const back = install('edge', ['--root', edgeRoot, '--rollback']);
    expect(back).toContain(
      `rolling back from ${after.slice('releases/'.length)} to ${before.slice('releases/'.length)}`,
    );
    expect(readlinkSync(join(edgeRoot, 'opt/yard/current'))).toBe(before);
    expect(readlinkSync(join(edgeRoot, 'opt/yard/previous'))).toBe(after);
    const tables = (file: string) => {
      const read = new Database(file, { readonly: true });
      const row = read.prepare("SELECT name FROM sqlite_master WHERE name = 'after_upgrade'").get() as
        | { name: string }
        | undefined;
      read.close();
      return row?.name ?? '';
    };
    expect(tables(db)).toBe('');
    expect(modeOwner(edgeRoot, 'var/lib/yard/yard.db')).toBe(`600 ${uid}:${gid}`);
    const kept = readdirSync(join(edgeRoot, 'var/lib/yard/backups')).find((f) =>
      f.includes('rolled-back-from'),
    );
    expect(tables(join(edgeRoot, 'var/lib/yard/backups', kept!))).toBe('after_upgrade');

    // The old release runs on the restored database.
    pm2(edgeRoot, 'start', join(edgeRoot, 'etc/yard/edge.config.cjs'));
    expect(await ready(ports.edge, edgeRoot)).toMatchObject({ status: 'ready', siteId: 'north-1' });
  });

  it.skipIf(!postgresAvailable())(
    'the cloud on PostgreSQL: --database-url is migrated at install, and an upgrade takes a pg_dump first',
    async () => {
      const database = await createTestDatabase();
      started.push(() => void database.drop());
      const pgRoot = join(work, 'pg-root');
      install('cloud', [
        '--root',
        pgRoot,
        '--database-url',
        database.url,
        '--mqtt-url',
        'mqtt://127.0.0.1:1',
      ]);
      const config = JSON.parse(readFileSync(join(pgRoot, 'etc/yard/cloud.json'), 'utf8'));
      expect(config.database).toEqual({ url: database.url });
      expect(existsSync(join(pgRoot, 'var/lib/yard/yard.db'))).toBe(false);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT count(*)::int AS n FROM sync_meta WHERE name = 'stream'");
        expect(rows).toEqual([{ n: 1 }]);
      } finally {
        await client.end();
      }

      const out = install('cloud', ['--root', pgRoot, '--source', join(work, 'source-next')]);
      const dump = /cloud-\d{8}T\d{6}Z-before-[\w.-]+?\.pgdump/.exec(out)?.[0];
      expect(dump).toBeTruthy();
      const { uid, gid } = ids(pgRoot);
      expect(modeOwner(pgRoot, `var/lib/yard/backups/${dump}`)).toBe(`600 ${uid}:${gid}`);
      // A real dump: pg_restore reads its table of contents.
      const toc = execFileSync('pg_restore', ['--list', join(pgRoot, 'var/lib/yard/backups', dump!)], {
        encoding: 'utf8',
      });
      expect(toc).toMatch(/TABLE public sync_meta/);
    },
  );

  it('the HTTPS certificate and key site:add wrote beside the config go where the config names them', () => {
    const run = asYard(
      cloudRoot,
      [
        process.execPath,
        join(cloudRoot, 'opt/yard/current/dist/cloud/provision-site-cli.js'),
        'south-1',
        '--mqtt-url',
        `mqtt://127.0.0.1:${ports.mqtt}`,
        '--tls-host',
        'yard-south.example.org',
        '--tls-edge-dir',
        '/etc/yard',
        '--out',
        siteFiles,
      ],
      {
        YARD_CONFIG_FILE: join(cloudRoot, 'etc/yard/cloud.json'),
        YARD_DATA_DIR: join(cloudRoot, 'var/lib/yard'),
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const tlsRoot = join(work, 'tls-root');
    install('edge', ['--root', tlsRoot, '--config', join(siteFiles, 'south-1.edge.json')]);
    const config = JSON.parse(readFileSync(join(tlsRoot, 'etc/yard/edge.json'), 'utf8'));
    expect(config.tls).toEqual({
      certFile: '/etc/yard/south-1.edge.crt',
      keyFile: '/etc/yard/south-1.edge.key',
    });
    const { uid, gid } = ids(tlsRoot);
    expect(modeOwner(tlsRoot, 'etc/yard/south-1.edge.key')).toBe(`600 ${uid}:${gid}`);
    expect(modeOwner(tlsRoot, 'etc/yard/south-1.edge.crt')).toBe(`644 0:${gid}`);
    expect(readFileSync(join(tlsRoot, 'etc/yard/south-1.edge.key'))).toEqual(
      readFileSync(join(siteFiles, 'south-1.edge.key')),
    );
  });

  it('--dry-run changes nothing; a missing config is an error that says what to do', () => {
    const fresh = join(work, 'dry-root');
    const out = install('edge', [
      '--root',
      fresh,
      '--dry-run',
      '--config',
      join(siteFiles, 'north-1.edge.json'),
    ]);
    expect(out).toMatch(/^ {3}would {4}user yard/m);
    expect(listing(fresh)).toEqual({});

    const missing = spawnSync('bash', ['deploy/edge/install.sh', '--root', join(work, 'other-root')], {
      encoding: 'utf8',
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/Error: no edge config/);
    expect(missing.stderr).toMatch(/Fix: at the cloud run npm run site:add/);
  });
});
