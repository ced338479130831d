import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type mqtt from 'mqtt';
import type { MqttClient } from 'mqtt';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudBroker, startCloudBroker } from '../../../cloud/broker.js';
import { CloudBrokerAuth } from '../../../cloud/broker-auth.js';
import { ProvisionError, provisionSite } from '../../../cloud/provision-site.js';
import { runProvisionCli } from '../../../cloud/provision-site-cli.js';
import { type Config, loadConfig } from '../../../shared/config.js';
import { type AppDatabase, openDatabase } from '../../../shared/db/database.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../shared/http/errors.js';
import { SiteRepo } from '../../../shared/modules/sync/sites.js';
import { verifyMosquittoPassword } from '../../../shared/sync/mosquitto-password.js';
import { connectOnce } from '../../helpers/mqtt-client.js';
import { createTestDatabase, postgresAvailable } from '../../helpers/postgres.js';

const CLOUD_PASSWORD = 'cloud-secret-for-tests';

let dir: string;
let config: Config;
let db: AppDatabase;
let broker: CloudBroker;
const clients: MqttClient[] = [];

function cloudConfig(dataDir: string): Config {
  return loadConfig(
    {},
    { role: 'cloud', dataDir, mqtt: { password: CLOUD_PASSWORD, host: '127.0.0.1', port: 0 } },
  );
}

/** The site's password as the edge will read it: from the config file provisioning wrote. */
function edgePassword(siteId: string): string {
  const file = JSON.parse(readFileSync(join(dir, 'out', `${siteId}.edge.json`), 'utf8'));
  return file.mqtt.password as string;
}

/** Connects, or rejects with why the broker refused (CONNACK error, or the socket closed first). */
function connect(
  username: string,
  password: string | undefined,
  url = broker.url,
  extra: mqtt.IClientOptions = {},
): Promise<MqttClient> {
  const { client, connected } = connectOnce(
    url,
    username,
    password,
    `edge-${username}:${clients.length}`,
    extra,
  );
  clients.push(client);
  return connected;
}

async function refusal(username: string, password: string | undefined): Promise<string> {
  try {
    const client = await connect(username, password);
    client.end(true);
    return 'connected';
  } catch (err) {
    return (err as Error).message;
  }
}

/** Collects what a client receives, and waits (with a deadline) for a message on a topic. */
function inbox(client: MqttClient) {
  const got: Array<{ topic: string; payload: string }> = [];
  client.on('message', (topic, payload) => got.push({ topic, payload: payload.toString() }));
  return {
    got,
    async waitFor(topic: string, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!got.some((m) => m.topic === topic)) {
        if (Date.now() > deadline) throw new Error(`nothing on ${topic} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'broker-auth-'));
  config = cloudConfig(join(dir, 'data'));
  db = openDatabase(join(dir, 'data', 'yard.db'));
  for (const siteId of ['site-a', 'site-b']) {
    await provisionSite(db.kysely, config, { siteId, outDir: join(dir, 'out') });
  }
  broker = await startCloudBroker({ config, kysely: db.kysely, port: 0 });
});

afterAll(async () => {
  for (const client of clients) client.end(true);
  await broker?.stop();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('embedded broker: site credentials and topic rules', () => {
  it('lets a site log in with its provisioned password and nobody with a wrong one', async () => {
    const a = await connect('site-a', edgePassword('site-a'));
    expect(a.connected).toBe(true);
    expect(await refusal('site-a', edgePassword('site-b'))).toMatch(/bad user ?name or password/i);
    expect(await refusal('site-a', undefined)).toMatch(/bad user ?name or password/i);
    expect(await refusal('site-c', edgePassword('site-a'))).toMatch(/bad user ?name or password/i);
    expect(await refusal('cloud', 'not-the-cloud-password')).toMatch(/bad user ?name or password/i);
    expect(await refusal('yards/#', CLOUD_PASSWORD)).toMatch(/bad user ?name or password/i);
  });

  it("refuses a site that connects with another site's client id (no session takeover)", async () => {
    const b = await connect('site-b', edgePassword('site-b'), broker.url, { clientId: 'edge-site-b' });
    const taken = await connect('site-a', edgePassword('site-a'), broker.url, {
      clientId: 'edge-site-b',
    }).then(
      (c) => {
        c.end(true);
        return 'connected';
      },
      (err: Error) => err.message,
    );
    expect(taken).toMatch(/bad user ?name or password/i);
    expect(b.connected).toBe(true);
    const own = await connect('site-a', edgePassword('site-a'), broker.url, { clientId: 'edge-site-a' });
    expect(own.connected).toBe(true);
  });

  it('refuses a site subscriptions outside its own topics', async () => {
    const a = await connect('site-a', edgePassword('site-a'));
    const filters = [
      'yards/site-a/down/#',
      'yards/site-b/#',
      'yards/+/up/#',
      'yards/#',
      '#',
      '$share/g/yards/site-b/#',
    ];
    const outcome: string[] = [];
    for (const filter of filters) {
      // mqtt.js rejects a SUBACK with a failure code (0x80); the connection stays up.
      outcome.push(
        await a.subscribeAsync(filter, { qos: 1 }).then(
          (granted) => `granted ${granted[0]?.qos}`,
          (err: Error) => `refused: ${err.message}`,
        ),
      );
    }
    expect(outcome[0]).toBe('granted 1');
    for (const refused of outcome.slice(1)) expect(refused).toMatch(/^refused/);
    expect(a.connected).toBe(true);
  });

  it("never delivers a site's publish on another site's topics", async () => {
    const b = await connect('site-b', edgePassword('site-b'));
    const bInbox = inbox(b);
    await b.subscribeAsync('yards/site-b/down/#', { qos: 1 });
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const cloudInbox = inbox(cloud);
    await cloud.subscribeAsync('yards/#', { qos: 1 });

    const a = await connect('site-a', edgePassword('site-a'));
    // Aedes drops a client that publishes where it may not, Mosquitto acks and discards: either way
    // the broker has dealt with the packet once the connection is gone or the PUBACK is back.
    const closed = new Promise<void>((resolve) => a.once('close', () => resolve()));
    const forged = a.publishAsync('yards/site-b/down/cmd', '{"kind":"actuate","forged":true}', { qos: 1 });
    await Promise.race([closed, forged.catch(() => undefined)]);
    // A marker sent after that reaches B (and the cloud) after anything the forged publish caused.
    await cloud.publishAsync('yards/site-b/down/marker', 'after', { qos: 1 });
    await bInbox.waitFor('yards/site-b/down/marker');
    await cloudInbox.waitFor('yards/site-b/down/marker');
    expect(bInbox.got.map((m) => m.topic)).toEqual(['yards/site-b/down/marker']);
    expect(cloudInbox.got.map((m) => m.topic)).toEqual(['yards/site-b/down/marker']);
  });

  it('refuses a site that publishes on its own down/ topics (a forged, retained command is neither delivered nor kept)', async () => {
    const edge = await connect('site-a', edgePassword('site-a'));
    const edgeInbox = inbox(edge);
    await edge.subscribeAsync('yards/site-a/down/#', { qos: 1 });
    const cloud = await connect('cloud', CLOUD_PASSWORD);

    for (const topic of ['yards/site-a/down/cmd', 'yards/site-a/down/changes']) {
      // Another connection with the site's credentials (a stolen box, a tool).
      const forger = await connect('site-a', edgePassword('site-a'));
      const closed = new Promise<void>((resolve) => forger.once('close', () => resolve()));
      const forged = forger.publishAsync(topic, '{"kind":"actuate","forged":true}', { qos: 1, retain: true });
      await Promise.race([closed, forged.catch(() => undefined)]);
      expect(forger.connected).toBe(false);
    }
    await cloud.publishAsync('yards/site-a/down/marker', 'after', { qos: 1 });
    await edgeInbox.waitFor('yards/site-a/down/marker');
    expect(edgeInbox.got.map((m) => m.topic)).toEqual(['yards/site-a/down/marker']);

    // Nothing was retained: a new subscription gets only what the cloud sends after it.
    const later = await connect('site-a', edgePassword('site-a'));
    const laterInbox = inbox(later);
    await later.subscribeAsync('yards/site-a/down/#', { qos: 1 });
    await cloud.publishAsync('yards/site-a/down/marker', 'again', { qos: 1 });
    await laterInbox.waitFor('yards/site-a/down/marker');
    expect(laterInbox.got.map((m) => m.topic)).toEqual(['yards/site-a/down/marker']);
  });

  it('lets a site publish its uploads and retained status (and last will), and read nothing of its own up/', async () => {
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const cloudInbox = inbox(cloud);
    await cloud.subscribeAsync('yards/site-a/#', { qos: 1 });
    const site = await connect('site-a', edgePassword('site-a'), broker.url, {
      will: { topic: 'yards/site-a/status', payload: Buffer.from('offline'), qos: 1, retain: true },
    });
    await site.publishAsync('yards/site-a/up/changes', 'batch', { qos: 1 });
    await site.publishAsync('yards/site-a/status', 'online', { qos: 1, retain: true });
    const refused = await site.subscribeAsync('yards/site-a/up/#', { qos: 1 }).then(
      () => 'granted',
      () => 'refused',
    );
    expect(refused).toBe('refused');
    site.stream.destroy(); // no DISCONNECT: the broker publishes the will
    const deadline = Date.now() + 5_000;
    while (!cloudInbox.got.some((m) => m.payload === 'offline')) {
      if (Date.now() > deadline) throw new Error('no last will');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(cloudInbox.got.map((m) => `${m.topic} ${m.payload}`)).toEqual([
      'yards/site-a/up/changes batch',
      'yards/site-a/status online',
      'yards/site-a/status offline',
    ]);
  });

  it('lets the cloud user read every site and write to each', async () => {
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const cloudInbox = inbox(cloud);
    await cloud.subscribeAsync('yards/+/up/#', { qos: 1 });
    const a = await connect('site-a', edgePassword('site-a'));
    const b = await connect('site-b', edgePassword('site-b'));
    const aInbox = inbox(a);
    await a.subscribeAsync('yards/site-a/down/#', { qos: 1 });
    await a.publishAsync('yards/site-a/up/changes', 'a-batch', { qos: 1 });
    await b.publishAsync('yards/site-b/up/changes', 'b-batch', { qos: 1 });
    await cloudInbox.waitFor('yards/site-a/up/changes');
    await cloudInbox.waitFor('yards/site-b/up/changes');
    await cloud.publishAsync('yards/site-a/down/cmd', 'open', { qos: 1 });
    await aInbox.waitFor('yards/site-a/down/cmd');
    expect(aInbox.got).toEqual([{ topic: 'yards/site-a/down/cmd', payload: 'open' }]);
  });

  it('refuses the old password as soon as a site is given a new one', async () => {
    const before = edgePassword('site-b');
    expect(await refusal('site-b', before)).toBe('connected');
    await provisionSite(db.kysely, config, {
      siteId: 'site-b',
      outDir: join(dir, 'out'),
      rotatePassword: true,
    });
    const after = edgePassword('site-b');
    expect(after).not.toBe(before);
    expect(await refusal('site-b', before)).toMatch(/bad user ?name or password/i);
    expect(await refusal('site-b', after)).toBe('connected');
  });
});

/** A throwaway self-signed certificate for 127.0.0.1, or undefined without the openssl binary. */
function makeCertificate(into: string): { cert: string; key: string } | undefined {
  const cert = join(into, 'server.crt');
  const key = join(into, 'server.key');
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1']
        .concat(['-keyout', key, '-out', cert, '-subj', '/CN=127.0.0.1'])
        .concat(['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']),
      { stdio: 'ignore' },
    );
    return { cert, key };
  } catch {
    return undefined;
  }
}

describe('embedded broker over TLS', () => {
  it('accepts a site that trusts the certificate and refuses plain MQTT on the TLS port', async (ctx) => {
    const pem = makeCertificate(dir);
    if (!pem) return ctx.skip('openssl is not installed: no certificate for the TLS listener');
    const tlsConfig = loadConfig(
      {},
      {
        role: 'cloud',
        dataDir: join(dir, 'data'),
        mqtt: { password: CLOUD_PASSWORD, host: '127.0.0.1', certFile: pem.cert, keyFile: pem.key },
      },
    );
    const tlsBroker = await startCloudBroker({ config: tlsConfig, kysely: db.kysely, port: 0 });
    try {
      expect(tlsBroker.url).toMatch(/^mqtts:/);
      const site = await connect('site-a', edgePassword('site-a'), tlsBroker.url, {
        ca: readFileSync(pem.cert),
      });
      expect(site.connected).toBe(true);
      const plain = await connect(
        'site-a',
        edgePassword('site-a'),
        tlsBroker.url.replace('mqtts:', 'mqtt:'),
      ).then(
        () => 'connected',
        () => 'refused',
      );
      const untrusted = await connect('site-a', edgePassword('site-a'), tlsBroker.url).then(
        () => 'connected',
        (err: Error) => err.message,
      );
      expect(untrusted).toMatch(/self-signed|certificate/i);
      expect(plain).toBe('refused');
    } finally {
      await tlsBroker.stop();
    }
  });
});

describe('topic rules', () => {
  const auth = new CloudBrokerAuth({
    sites: { passwordHash: async () => undefined },
    cloudUsername: 'cloud',
    cloudPassword: 'x',
  });
  // [user, topic or filter, may publish, may subscribe]
  it.each([
    ['site-a', 'yards/site-a/up/changes', true, false],
    ['site-a', 'yards/site-a/up/cmd-result', true, false],
    ['site-a', 'yards/site-a/status', true, false],
    ['site-a', 'yards/site-a/down/cmd', false, true],
    ['site-a', 'yards/site-a/down/changes', false, true],
    ['site-a', 'yards/site-a/down/#', false, true],
    ['site-a', 'yards/site-a/#', false, false],
    ['site-a', 'yards/site-a', false, false],
    ['site-a', 'yards/site-a/other', false, false],
    ['site-a', 'yards/site-a/status/x', false, false],
    ['site-a', 'yards/site-ab/up/changes', false, false],
    ['site-a', 'yards/site-', false, false],
    ['site-a', 'yards/+/up/changes', false, false],
    ['site-a', 'yards', false, false],
    ['site-a', '$SYS/broker/clients', false, false],
    ['site-a', '$share/g/yards/site-a/down/#', false, true],
    ['site-a', '$share/g/yards/site-b/down/#', false, false],
    ['site-a', '$share/yards/site-a/down/#', false, false], // group 'yards', filter 'site-a/down/#'
    ['site-a', '$share/', false, false],
    ['cloud', 'yards/#', true, true],
    ['cloud', '$share/cloud/yards/+/up/#', true, true],
    ['cloud', 'yards/site-b/down/cmd', true, true],
    ['cloud', '#', false, false],
    ['cloud', 'other/topic', false, false],
    ['bad+user', 'yards/bad+user/up/x', false, false],
  ])('%s on %s: publish %s, subscribe %s', (user, topic, publish, subscribe) => {
    expect(auth.authorize(user, topic, 'publish')).toBe(publish);
    expect(auth.authorize(user, topic, 'subscribe')).toBe(subscribe);
  });
});

describe('SiteRepo', () => {
  it('validates, refuses duplicates and reserved names, and rotates passwords', async () => {
    const sites = new SiteRepo(db.kysely, { now: () => 1_700_000_000_000 });
    const created = await sites.create({ id: 'repo-1', name: ' Repo yard ', password: 'long-enough-pw' });
    expect(created).toMatchObject({ id: 'repo-1', name: 'Repo yard', createdAt: 1_700_000_000_000 });
    expect(created).not.toHaveProperty('mqttPasswordHash');
    expect((await sites.list()).map((s) => s.id)).toContain('repo-1');
    await expect(sites.create({ id: 'repo-1', name: 'again', password: 'long-enough-pw' })).rejects.toThrow(
      ConflictError,
    );
    for (const bad of [
      { id: 'no/slash', name: 'x', password: 'long-enough-pw' },
      { id: 'a'.repeat(65), name: 'x', password: 'long-enough-pw' },
      { id: 'repo-2', name: '', password: 'long-enough-pw' },
      { id: 'repo-2', name: 'x', password: 'short' },
      { id: 'cloud', name: 'x', password: 'long-enough-pw' },
    ]) {
      await expect(sites.create(bad), JSON.stringify(bad)).rejects.toThrow(ValidationError);
    }
    expect(await sites.get('repo-2')).toBeUndefined();
    await sites.setPassword('repo-1', 'another-long-pw');
    expect(await sites.verifyPassword('repo-1', 'long-enough-pw')).toBe(false);
    expect(await sites.verifyPassword('repo-1', 'another-long-pw')).toBe(true);
    expect(await sites.verifyPassword('nobody', 'another-long-pw')).toBe(false);
    await expect(sites.setPassword('nobody', 'another-long-pw')).rejects.toThrow(NotFoundError);
  });
});

describe('provisionSite', () => {
  it('writes a loadable 0600 edge config and stores only the hash', async () => {
    const out = join(dir, 'out');
    const result = await provisionSite(db.kysely, config, {
      siteId: 'north-1',
      name: 'North yard',
      outDir: out,
      mqttUrl: 'mqtts://broker.example:8883',
      cloudUrl: 'https://cloud.example',
      caFile: '/etc/yard/ca.crt',
    });
    expect(result.site).toMatchObject({ id: 'north-1', name: 'North yard', linkState: 'never' });
    expect(result.warnings).toEqual([]);
    expect(statSync(result.edgeConfigFile).mode & 0o777).toBe(0o600);
    const edge = loadConfig({ YARD_CONFIG_FILE: result.edgeConfigFile });
    expect(edge).toMatchObject({
      role: 'edge',
      siteId: 'north-1',
      cloudUrl: 'https://cloud.example',
      mqtt: { url: 'mqtts://broker.example:8883', username: 'north-1', caFile: '/etc/yard/ca.crt' },
    });
    expect(edge.mqtt.password!.length).toBeGreaterThanOrEqual(32);
    const sites = new SiteRepo(db.kysely);
    expect(await sites.verifyPassword('north-1', edge.mqtt.password!)).toBe(true);
    const stored = await sites.passwordHash('north-1');
    expect(stored).toMatch(/^\$7\$101\$/);
    expect(stored).not.toContain(edge.mqtt.password!);
  });

  it('adds and replaces lines in a Mosquitto password file, keeping the others', async () => {
    const passwd = join(dir, 'passwd');
    writeFileSync(passwd, 'cloud:$7$101$c2FsdA==$aGFzaA==\n', { mode: 0o640 });
    const opts = { outDir: join(dir, 'out'), mosquittoPasswd: passwd };
    await provisionSite(db.kysely, config, { ...opts, siteId: 'east-1' });
    await provisionSite(db.kysely, config, { ...opts, siteId: 'east-2' });
    const firstEast1 = readFileSync(passwd, 'utf8').split('\n')[1];
    await provisionSite(db.kysely, config, { ...opts, siteId: 'east-1', rotatePassword: true });
    const lines = readFileSync(passwd, 'utf8').split('\n');
    expect(lines.map((l) => l.split(':')[0])).toEqual(['cloud', 'east-1', 'east-2', '']);
    expect(lines[1]).not.toBe(firstEast1);
    const east1 = JSON.parse(readFileSync(join(dir, 'out', 'east-1.edge.json'), 'utf8'));
    expect(verifyMosquittoPassword(east1.mqtt.password, lines[1]!.slice('east-1:'.length))).toBe(true);
    expect(statSync(passwd).mode & 0o777).toBe(0o640);
  });

  it('refuses, with what to do, and changes nothing', async () => {
    const out = join(dir, 'refused');
    const attempt = (options: Partial<Parameters<typeof provisionSite>[2]>, cfg = config) =>
      provisionSite(db.kysely, cfg, { siteId: 'x', outDir: out, ...options }).then(
        () => undefined,
        (err: unknown) => err,
      );
    const exists = await attempt({ siteId: 'site-a' });
    expect(exists).toBeInstanceOf(ProvisionError);
    expect((exists as ProvisionError).fix).toMatch(/--rotate-password/);
    expect(await attempt({ siteId: 'nobody', rotatePassword: true })).toBeInstanceOf(ProvisionError);
    expect(await attempt({ siteId: 'bad/id' })).toBeInstanceOf(ProvisionError);
    expect(await attempt({ siteId: 'cloud' })).toBeInstanceOf(ProvisionError);
    expect(await attempt({ siteId: 'west-1', mqttUrl: 'http://not-mqtt' })).toBeInstanceOf(ProvisionError);
    const edgeConfig = loadConfig({}, { role: 'edge', dataDir: join(dir, 'data') });
    expect(await attempt({ siteId: 'west-1' }, edgeConfig)).toBeInstanceOf(ProvisionError);
    // A file that cannot be written rolls the site back.
    writeFileSync(join(dir, 'a-file'), '');
    expect(await attempt({ siteId: 'west-1', outDir: join(dir, 'a-file', 'sub') })).toBeInstanceOf(
      ProvisionError,
    );
    expect(await new SiteRepo(db.kysely).get('west-1')).toBeUndefined();
    expect(await new SiteRepo(db.kysely).get('nobody')).toBeUndefined();
  });
});

describe('npm run site:add', () => {
  const run = promisify(execFile);
  const cli = (args: string[], env: Record<string, string>) =>
    run(join('node_modules', '.bin', 'tsx'), ['cloud/provision-site-cli.ts', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    }).then(
      (r) => ({ code: 0, ...r }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );

  it('explains argument errors and writes the files', async () => {
    const env = { YARD_ROLE: 'cloud', YARD_DATA_DIR: join(dir, 'cli-data') };
    const bad = await cli(['--out'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--out/);
    expect(bad.stderr).toMatch(/Usage: npm run site:add/);

    const out = join(dir, 'cli-out');
    const passwd = join(dir, 'cli-passwd');
    const ok = await cli(
      [
        'south-1',
        '--name',
        'South yard',
        '--out',
        out,
        '--mosquitto-passwd',
        passwd,
        '--mqtt-url',
        'mqtts://b.example:8883',
      ],
      env,
    );
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Created site south-1 \("South yard"\)/);
    expect(ok.stdout).toMatch(/Next steps/);
    const file = join(out, 'south-1.edge.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = JSON.parse(readFileSync(file, 'utf8')).mqtt.password as string;
    expect(ok.stdout).not.toContain(password);
    const line = readFileSync(passwd, 'utf8').trim();
    expect(verifyMosquittoPassword(password, line.slice('south-1:'.length))).toBe(true);
  });
});

describe.skipIf(!postgresAvailable())('npm run site:add on a cloud on PostgreSQL', () => {
  it("provisions the site in the cloud's PostgreSQL database, not in a file of the data folder", async () => {
    const database = await createTestDatabase();
    try {
      const env = {
        YARD_ROLE: 'cloud',
        YARD_DATA_DIR: join(dir, 'pg-data'),
        YARD_DATABASE_URL: database.url,
      };
      const out: string[] = [];
      const err: string[] = [];
      const code = await runProvisionCli(
        ['pg-site', '--name', 'On PostgreSQL', '--out', join(dir, 'pg-out')],
        env,
        {
          out: (line) => out.push(line),
          err: (line) => err.push(line),
        },
      );
      expect(err).toEqual([]);
      expect(code).toBe(0);
      expect(out.join('\n')).toMatch(/Created site pg-site \("On PostgreSQL"\) in postgres:\/\//);
      const pool = new pg.Pool({ connectionString: database.url });
      try {
        expect((await pool.query('SELECT id, name FROM site')).rows).toEqual([
          { id: 'pg-site', name: 'On PostgreSQL' },
        ]);
      } finally {
        await pool.end();
      }
      expect(existsSync(join(dir, 'pg-data', 'yard.db'))).toBe(false);
    } finally {
      await database.drop();
    }
  });
});
