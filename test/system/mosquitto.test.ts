import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionSite } from '../../cloud/provision-site.js';
import { loadConfig } from '../../shared/config.js';
import { type AppDatabase, openDatabase } from '../../shared/db/database.js';
import { verifyMosquittoPassword } from '../../shared/sync/mosquitto-password.js';
import { MAX_PACKET_BYTES } from '../../shared/sync/protocol.js';
import { connectOnce } from '../helpers/mqtt-client.js';

/**
 * Debian's Mosquitto with the deploy/mosquitto config and ACL, and a password file written by our
 * provisioning code: the credentials and topic rules an operator deploys, checked against the real
 * broker. Ports are free loopback ports; Debian's own mosquitto service is not used.
 */
const MOSQUITTO = '/usr/sbin/mosquitto';
const MOSQUITTO_PASSWD = '/usr/bin/mosquitto_passwd';
const DEPLOY = resolve('deploy/mosquitto');
const CLOUD_PASSWORD = 'cloud-password-for-system-test';
const installed = existsSync(MOSQUITTO) && existsSync(MOSQUITTO_PASSWD);
if (!installed)
  console.warn(`SKIPPED: ${MOSQUITTO} not installed (apt-get install mosquitto; .ci/run does).`);

const dir = mkdtempSync(join(tmpdir(), 'yard-mosquitto-'));
const passwdFile = join(dir, 'passwd');
let db: AppDatabase;
let broker: ChildProcess | undefined;
let brokerLog = '';
let plainPort = 0;
let tlsPort = 0;
let tls: { cert: string; key: string } | undefined;
const clients: MqttClient[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** A throwaway self-signed certificate for 127.0.0.1, or undefined without openssl. */
function makeCertificate(): { cert: string; key: string } | undefined {
  const cert = join(dir, 'server.crt');
  const key = join(dir, 'server.key');
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

/**
 * deploy/mosquitto/mosquitto.conf with this test's paths and ports: its TLS listener on a loopback
 * port (dropped without a certificate), plus a plain loopback listener that the file's global
 * settings still protect with the password file and ACL.
 */
const TLS_LINE = /^(listener 8883|certfile|keyfile|cafile|tls_version|require_certificate)\b/;

function writeConfig(): string {
  const lines = readFileSync(join(DEPLOY, 'mosquitto.conf'), 'utf8')
    .split('\n')
    .filter((line) => tls !== undefined || !TLS_LINE.test(line))
    .map((line) =>
      line
        .replace('/etc/mosquitto/passwd', passwdFile)
        .replace('/etc/mosquitto/acl', join(DEPLOY, 'acl'))
        .replace('/etc/mosquitto/certs/server.crt', tls?.cert ?? '')
        .replace('/etc/mosquitto/certs/server.key', tls?.key ?? '')
        .replace('/etc/mosquitto/certs/ca.crt', tls?.cert ?? '')
        .replace('/var/lib/mosquitto/', `${join(dir, 'store')}/`)
        .replace('listener 8883', `listener ${tlsPort} 127.0.0.1`)
        .replace('/run/mosquitto/mosquitto.pid', join(dir, 'mosquitto.pid'))
        .replace('log_dest file /var/log/mosquitto/mosquitto.log', 'log_dest stderr'),
    );
  const unmapped = lines.filter((line) => !line.startsWith('#') && /\/(etc|var|run)\//.test(line));
  if (unmapped.length > 0) throw new Error(`deploy config has paths this test does not map: ${unmapped}`);
  // Run as whoever runs the tests (as root Mosquitto would switch to the mosquitto user).
  lines.push(`listener ${plainPort} 127.0.0.1`, `user ${process.getuid?.() === 0 ? 'root' : 'mosquitto'}`);
  const file = join(dir, 'mosquitto.conf');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function startBroker(): Promise<void> {
  brokerLog = '';
  const child = spawn(MOSQUITTO, ['-c', join(dir, 'mosquitto.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  broker = child;
  child.stdout?.on('data', (chunk: Buffer) => (brokerLog += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (brokerLog += chunk.toString()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(plainPort))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`mosquitto did not start (exit ${child.exitCode}):\n${brokerLog}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopBroker(): Promise<void> {
  const child = broker;
  broker = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM'); // Mosquitto saves its persistence file on a clean exit.
  await exited;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((r) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      r(true);
    });
    socket.once('error', () => r(false));
  });
}

function connect(username: string, password: string, extra: mqtt.IClientOptions = {}): Promise<MqttClient> {
  const { client, connected } = connectOnce(
    `mqtt://127.0.0.1:${plainPort}`,
    username,
    password,
    `edge-${username}:${clients.length}`,
    extra,
  );
  clients.push(client);
  return connected;
}

function edgePassword(siteId: string): string {
  return JSON.parse(readFileSync(join(dir, 'out', `${siteId}.edge.json`), 'utf8')).mqtt.password;
}

function inbox(client: MqttClient) {
  const got: Array<{ topic: string; payload: string; retain: boolean }> = [];
  client.on('message', (topic, payload, packet) =>
    got.push({ topic, payload: payload.toString(), retain: packet.retain }),
  );
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

function closeClients(): void {
  for (const client of clients.splice(0)) client.end(true);
}

describe.skipIf(!installed)('Mosquitto with the deploy config, ACL and provisioned sites', () => {
  beforeAll(async () => {
    [plainPort, tlsPort] = [await freePort(), await freePort()];
    tls = makeCertificate();
    if (!tls) console.warn('TLS part SKIPPED: openssl is not installed, so there is no test certificate.');
    mkdirSync(join(dir, 'store'));
    db = openDatabase(join(dir, 'data', 'yard.db'));
    const config = loadConfig({}, { role: 'cloud', dataDir: join(dir, 'data') });
    for (const siteId of ['site-a', 'site-b']) {
      await provisionSite(db.kysely, config, {
        siteId,
        outDir: join(dir, 'out'),
        mosquittoPasswd: passwdFile,
      });
    }
    // The cloud user as the operator creates it (deploy/mosquitto/README.md).
    execFileSync(MOSQUITTO_PASSWD, ['-b', passwdFile, 'cloud', CLOUD_PASSWORD]);
    writeConfig();
    await startBroker();
  });

  afterAll(async () => {
    closeClients();
    await stopBroker();
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts the provisioned site password and refuses a wrong one', async () => {
    const a = await connect('site-a', edgePassword('site-a'));
    expect(a.connected).toBe(true);
    await expect(connect('site-a', edgePassword('site-b'))).rejects.toThrow(/not authorized|bad user/i);
    await expect(connect('site-c', edgePassword('site-a'))).rejects.toThrow(/not authorized|bad user/i);
    await expect(connect('cloud', CLOUD_PASSWORD)).resolves.toBeTruthy();
  });

  it('verifies a hash made by mosquitto_passwd -b', () => {
    const file = join(dir, 'vector');
    execFileSync(MOSQUITTO_PASSWD, ['-c', '-b', file, 'someone', 'correct horse battery']);
    const hash = readFileSync(file, 'utf8').trim().slice('someone:'.length);
    expect(hash).toMatch(/^\$7\$\d+\$/);
    expect(verifyMosquittoPassword('correct horse battery', hash)).toBe(true);
    expect(verifyMosquittoPassword('correct horse battery!', hash)).toBe(false);
  });

  it("never delivers a site's publish on another site's topics", async () => {
    const b = await connect('site-b', edgePassword('site-b'));
    const bInbox = inbox(b);
    await b.subscribeAsync('yards/site-b/down/#', { qos: 1 });
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const cloudInbox = inbox(cloud);
    await cloud.subscribeAsync('yards/#', { qos: 1 });
    const a = await connect('site-a', edgePassword('site-a'));
    const aInbox = inbox(a);
    // Mosquitto 2.0 may grant the SUBACK; its ACL then refuses every message on read.
    await a.subscribeAsync('yards/site-b/#', { qos: 1 }).catch(() => undefined);
    await a.subscribeAsync('yards/site-a/down/#', { qos: 1 });
    // Mosquitto acks a publish the ACL forbids and discards it (Aedes drops the client instead).
    const closed = new Promise<void>((r) => a.once('close', () => r()));
    const forged = a.publishAsync('yards/site-b/down/cmd', '{"forged":true}', { qos: 1 });
    await Promise.race([closed, forged.catch(() => undefined)]);
    await cloud.publishAsync('yards/site-b/down/marker', 'after', { qos: 1 });
    await bInbox.waitFor('yards/site-b/down/marker');
    await cloudInbox.waitFor('yards/site-b/down/marker');
    expect(bInbox.got.map((m) => m.topic)).toEqual(['yards/site-b/down/marker']);
    expect(cloudInbox.got.map((m) => m.topic)).toEqual(['yards/site-b/down/marker']);
    // B's traffic does not reach A either: a marker to A sent after it arrives alone.
    await cloud.publishAsync('yards/site-b/down/cmd', 'for-b-only', { qos: 1 });
    await cloud.publishAsync('yards/site-a/down/marker', 'after', { qos: 1 });
    await aInbox.waitFor('yards/site-a/down/marker');
    expect(aInbox.got.map((m) => m.topic)).toEqual(['yards/site-a/down/marker']);
    closeClients();
  });

  it('refuses a site publishing on its own down/ topics: a forged retained command is neither delivered nor kept', async () => {
    const edge = await connect('site-a', edgePassword('site-a'));
    const edgeInbox = inbox(edge);
    await edge.subscribeAsync('yards/site-a/down/#', { qos: 1 });
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const forger = await connect('site-a', edgePassword('site-a'));
    for (const topic of ['yards/site-a/down/cmd', 'yards/site-a/down/changes']) {
      const closed = new Promise<void>((r) => forger.once('close', () => r()));
      const forged = forger.publishAsync(topic, '{"kind":"actuate"}', { qos: 1, retain: true });
      await Promise.race([closed, forged.catch(() => undefined)]);
    }
    await cloud.publishAsync('yards/site-a/down/marker', 'after', { qos: 1 });
    await edgeInbox.waitFor('yards/site-a/down/marker');
    expect(edgeInbox.got.map((m) => m.topic)).toEqual(['yards/site-a/down/marker']);
    // Nothing retained: a new subscription gets only what the cloud sends after it.
    const later = await connect('site-a', edgePassword('site-a'));
    const laterInbox = inbox(later);
    await later.subscribeAsync('yards/site-a/down/#', { qos: 1 });
    await cloud.publishAsync('yards/site-a/down/marker', 'again', { qos: 1 });
    await laterInbox.waitFor('yards/site-a/down/marker');
    expect(laterInbox.got.map((m) => m.topic)).toEqual(['yards/site-a/down/marker']);
    closeClients();
  });

  it('passes a snapshot-sized message and drops a client whose packet is over max_packet_size', async () => {
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const got = inbox(cloud);
    await cloud.subscribeAsync('yards/site-a/up/#', { qos: 1 });
    const site = await connect('site-a', edgePassword('site-a'));
    const snapshotSized = Math.ceil((10 * 1024 * 1024 * 4) / 3) + 1024;
    await site.publishAsync('yards/site-a/up/cmd-result', Buffer.alloc(snapshotSized, 0x41), { qos: 1 });
    await got.waitFor('yards/site-a/up/cmd-result', 10_000);
    const closed = new Promise<void>((r) => site.once('close', () => r()));
    site.publish('yards/site-a/up/cmd-result', Buffer.alloc(MAX_PACKET_BYTES, 0x41), { qos: 0 });
    await closed;
    expect(got.got.map((m) => m.payload.length)).toEqual([snapshotSized]);
    closeClients();
  });

  it("lets the cloud read every site's uploads, through a shared subscription too", async () => {
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const got = inbox(cloud);
    await cloud.subscribeAsync('$share/cloud/yards/+/up/#', { qos: 1 });
    const a = await connect('site-a', edgePassword('site-a'));
    const b = await connect('site-b', edgePassword('site-b'));
    await a.publishAsync('yards/site-a/up/changes', 'a-batch', { qos: 1 });
    await b.publishAsync('yards/site-b/up/changes', 'b-batch', { qos: 1 });
    await got.waitFor('yards/site-a/up/changes');
    await got.waitFor('yards/site-b/up/changes');
    expect(got.got.map((m) => m.payload).sort()).toEqual(['a-batch', 'b-batch']);
    closeClients();
  });

  it('takes a site over TLS', async (ctx) => {
    if (!tls) return ctx.skip('openssl is not installed: no certificate for the TLS listener');
    const url = `mqtts://127.0.0.1:${tlsPort}`;
    const client = mqtt.connect(url, {
      username: 'site-a',
      password: edgePassword('site-a'),
      protocolVersion: 4,
      reconnectPeriod: 0,
      ca: readFileSync(tls.cert),
    });
    clients.push(client);
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    expect(client.connected).toBe(true);
    closeClients();
  });

  it("keeps retained status messages (and a site's last will) across a restart", async () => {
    const a = await connect('site-a', edgePassword('site-a'));
    await a.publishAsync('yards/site-a/status', '{"state":"online"}', { qos: 1, retain: true });
    const b = await connect('site-b', edgePassword('site-b'), {
      will: {
        topic: 'yards/site-b/status',
        payload: Buffer.from('{"state":"offline"}'),
        qos: 1,
        retain: true,
      },
    });
    await b.publishAsync('yards/site-b/status', '{"state":"online"}', { qos: 1, retain: true });
    // The link to B drops without a DISCONNECT: the broker publishes its will.
    const watcher = await connect('cloud', CLOUD_PASSWORD);
    const seen = inbox(watcher);
    await watcher.subscribeAsync('yards/site-b/status', { qos: 1 });
    b.stream.destroy();
    const deadline = Date.now() + 5_000;
    while (!seen.got.some((m) => m.payload.includes('offline'))) {
      if (Date.now() > deadline) throw new Error('no last will from site-b');
      await new Promise((r) => setTimeout(r, 10));
    }
    closeClients();

    await stopBroker();
    await startBroker();
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const status = inbox(cloud);
    await cloud.subscribeAsync('yards/+/status', { qos: 1 });
    await status.waitFor('yards/site-a/status');
    await status.waitFor('yards/site-b/status');
    expect(status.got.map((m) => [m.topic, m.payload, m.retain]).sort()).toEqual([
      ['yards/site-a/status', '{"state":"online"}', true],
      ['yards/site-b/status', '{"state":"offline"}', true],
    ]);
  });
});
