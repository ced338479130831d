import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, freePorts } from '../helpers/ports.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.js';
import { selfSignedLoopbackCert } from '../helpers/push-service-tls.js';
import { AppProcess } from '../helpers/sync-processes.js';
import { ADMIN } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * docs/cloud.md's production section as an operator runs it: two cloud nodes on one PostgreSQL
 * behind Debian's nginx with deploy/nginx/yard-cloud.conf (only the addresses, ports and
 * certificate paths changed). A login through nginx works at either node; when the node nginx
 * uses dies, reads and writes go on through the other; plain HTTP is sent to HTTPS.
 * (Each node here has its own embedded broker: the sites' traffic between nodes is the subject of
 * cloud-nodes.test.ts.)
 */
const NGINX = '/usr/sbin/nginx';
const nginxInstalled = existsSync(NGINX);
if (!nginxInstalled) console.warn('SKIPPED: nginx is not installed (apt-get install nginx-light).');

const dir = mkdtempSync(join(tmpdir(), 'yard-nginx-'));
let database: TestDatabase;
const nodes: AppProcess[] = [];
let nginx: ChildProcess | undefined;
let nginxOutput = '';
let tls: ReturnType<typeof selfSignedLoopbackCert>;
let httpsPort = 0;
let httpPort = 0;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request to nginx over HTTPS, trusting the test certificate. */
function viaNginx(method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      {
        host: '127.0.0.1',
        port: httpsPort,
        path,
        method,
        ca: tls.cert,
        // The certificate names 127.0.0.1; the Host header names the site, as a browser's would.
        checkServerIdentity: (_host, cert) => checkServerIdentity('127.0.0.1', cert),
        agent: false,
        headers: {
          host: 'cloud.example.com',
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += String(d);
        });
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** deploy/nginx/yard-cloud.conf with this machine's addresses, ports and certificate. */
function renderedConfig(): string {
  const conf = readFileSync('deploy/nginx/yard-cloud.conf', 'utf8');
  const servers = conf.match(/server 10\.0\.0\.\d+:8080/g) ?? [];
  expect(servers).toHaveLength(2);
  return conf
    .replace(servers[0]!, `server 127.0.0.1:${nodes[0]!.port}`)
    .replace(servers[1]!, `server 127.0.0.1:${nodes[1]!.port}`)
    .replace(/ {4}listen \[::\]:\d+.*\n/g, '') // no IPv6 on every test machine
    .replace(/listen 80;/, `listen 127.0.0.1:${httpPort};`)
    .replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${httpsPort} ssl http2;`)
    .replace(/ssl_certificate +\S+;/, `ssl_certificate ${tls.certFile};`)
    .replace(/ssl_certificate_key +\S+;/, `ssl_certificate_key ${join(dir, 'tls.key')};`);
}

describe.skipIf(!nginxInstalled || !postgresAvailable())('two cloud nodes on PostgreSQL behind nginx', () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    tls = selfSignedLoopbackCert();
    writeFileSync(join(dir, 'tls.key'), tls.key, { mode: 0o600 });
    for (const name of ['a', 'b']) {
      const node = new AppProcess(`cloud-${name}`, 'cloud/main.ts', await freePort(), {
        YARD_ROLE: 'cloud',
        YARD_DATA_DIR: join(dir, name),
        YARD_DATABASE_URL: database.url,
        YARD_MQTT_PORT: String(await freePort()),
        YARD_TRUST_PROXY: '1',
        YARD_LOG_LEVEL: 'warn',
        YARD_ADMIN_USER: ADMIN.username,
        YARD_ADMIN_PASSWORD: ADMIN.password,
      });
      nodes.push(node);
    }
    // One after the other: the first migrates, the second finds nothing to do.
    for (const node of nodes) await node.start();

    httpsPort = await freePorts(2);
    httpPort = httpsPort + 1;
    const prefix = join(dir, 'nginx');
    for (const sub of ['', 'tmp']) mkdirSync(join(prefix, sub), { recursive: true });
    chmodSync(join(prefix, 'tmp'), 0o777);
    writeFileSync(join(prefix, 'yard-cloud.conf'), renderedConfig());
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
      .map((t) => `  ${t}_temp_path ${join(prefix, 'tmp', t)};`)
      .join('\n');
    writeFileSync(
      join(prefix, 'nginx.conf'),
      `pid ${join(prefix, 'nginx.pid')};\nerror_log ${join(prefix, 'error.log')} warn;\nevents {}\nhttp {\n  access_log off;\n${temp}\n  include ${join(prefix, 'yard-cloud.conf')};\n}\n`,
    );
    const args = ['-p', prefix, '-c', join(prefix, 'nginx.conf')];
    // The operator's check before a reload: the configuration is valid for this nginx.
    execFileSync(NGINX, [...args, '-t'], { stdio: 'pipe' });
    nginx = spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stderr?.on('data', (d) => {
      nginxOutput += String(d);
    });
    let lastError = '';
    const answered = async () => {
      try {
        const r = await viaNginx('GET', '/readyz');
        lastError = `status ${r.status}`;
        return r.status === 200;
      } catch (err) {
        lastError = (err as Error).message;
        return false;
      }
    };
    const errorLog = () =>
      existsSync(join(prefix, 'error.log')) ? readFileSync(join(prefix, 'error.log'), 'utf8') : '';
    await waitFor(answered, {
      timeoutMs: 10_000,
      what: () => `nginx answering on ${httpsPort} (${lastError}; ${nginxOutput}; ${errorLog()})`,
    });
  }, 120_000);

  afterAll(async () => {
    nginx?.kill('SIGTERM');
    for (const node of nodes) await node.kill().catch(() => undefined);
    await database?.drop();
    tls?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in through nginx; the token works at both nodes (one database)', async () => {
    const login = await viaNginx('POST', '/api/auth/login', { body: ADMIN });
    expect(login.status).toBe(200);
    const token = login.body.token as string;
    for (const node of nodes) {
      const res = await fetch(`${node.url}/api/yard`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, node.name).toBe(200);
    }
    const carrier = await viaNginx('POST', '/api/carrier', { token, body: { name: 'Through nginx' } });
    expect(carrier.status).toBe(201);
    for (const node of nodes) {
      const res = await fetch(`${node.url}/api/carrier/${carrier.body.id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status, node.name).toBe(200);
    }
  });

  it('plain HTTP is redirected to HTTPS', async () => {
    // node:http, not fetch: fetch does not send a Host header of our choosing.
    const res = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      httpGet(
        { host: '127.0.0.1', port: httpPort, path: '/dashboard/', headers: { host: 'cloud.example.com' } },
        (r) => {
          r.resume();
          resolve({ status: r.statusCode ?? 0, location: r.headers.location });
        },
      ).on('error', reject);
    });
    expect(res).toEqual({ status: 301, location: 'https://cloud.example.com/dashboard/' });
  });

  it('when the node nginx uses dies, reads and writes go on through the other', async () => {
    const token = (await viaNginx('POST', '/api/auth/login', { body: ADMIN })).body.token as string;
    const me = async () => (await viaNginx('GET', '/api/sync/status', { token })).body.node.id as string;
    // The client's address picks the node (hash $remote_addr): the same one each time.
    const used = await me();
    expect(await me()).toBe(used);
    const ids = nodes.map((n) =>
      readFileSync(join(dir, n.name.slice('cloud-'.length), 'cloud-node-id'), 'utf8').trim(),
    );
    const victim = nodes[ids.indexOf(used)]!;
    const survivor = nodes.find((n) => n !== victim)!;
    await victim.kill();
    const read = await viaNginx('GET', '/api/carrier?limit=5', { token });
    expect(read.status).toBe(200);
    expect(await me()).not.toBe(used);
    // A write too: the dead node refused the connection, so nothing reached it and nginx may retry.
    const write = await viaNginx('POST', '/api/carrier', { token, body: { name: 'After the failover' } });
    expect(write.status).toBe(201);
    const there = await fetch(`${survivor.url}/api/carrier/${write.body.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(there.status).toBe(200);
    await victim.start();
    expect((await fetch(`${victim.url}/readyz`)).status).toBe(200);
  });
});
