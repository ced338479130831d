import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { get as httpsGet } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProvisionCli } from '../../../cloud/provision-site-cli.js';
import { type RunningEdge, startEdge } from '../../../edge/main.js';
import { ConfigError, loadConfig } from '../../../shared/config.js';
import { startFailure } from '../../../shared/process.js';
import { captureLog } from '../../helpers/log-capture.js';

/**
 * HTTPS on the yard LAN: `npm run site:add --tls-host ...` creates the organisation's CA once and
 * issues the edge's certificate from it; the edge started with that certificate (the real start
 * path, startEdge) is trusted by a client given the CA and by no other; its plain-HTTP port only
 * redirects to names the certificate covers; a certificate that cannot be used stops the start.
 */
const dir = mkdtempSync(join(tmpdir(), 'yard-https-'));
const cloudDir = join(dir, 'cloud');
const outDir = join(dir, 'out');
const caCertFile = join(cloudDir, 'tls', 'organisation-ca.crt');
const caKeyFile = join(cloudDir, 'tls', 'organisation-ca.key');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function siteAdd(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runProvisionCli(
    argv,
    { YARD_ROLE: 'cloud', YARD_DATA_DIR: cloudDir },
    { out: (line) => (out += `${line}\n`), err: (line) => (err += `${line}\n`) },
  );
  return { code, out, err };
}

const mode = (file: string) => statSync(file).mode & 0o777;
const certificate = (file: string) => new X509Certificate(readFileSync(file));

/** GET over HTTPS to 127.0.0.1:port as `servername`: the status, or the TLS error's code. */
function httpsStatus(
  port: number,
  options: { ca?: string; servername?: string } = {},
): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpsGet(
      {
        host: '127.0.0.1',
        port,
        path: '/readyz',
        ca: options.ca,
        servername: options.servername,
        agent: false,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** The serial number of the certificate the server at 127.0.0.1:port sends now (a new connection). */
function servedSerial(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpsGet({ host: '127.0.0.1', port, path: '/readyz', ca, agent: false }, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      res.resume();
      resolve(serial);
    });
    req.on('error', reject);
  });
}

/** A plain-HTTP request with its own Host header and request target (fetch cannot set Host). */
function plainRequest(
  port: number,
  options: { host: string; path?: string; method?: string },
): Promise<{ status: number; location?: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: { host: options.host },
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += String(d)));
        res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('site:add --tls-host: the organisation CA and the edge certificate', () => {
  it('creates the CA once (key 0600) and issues a certificate whose names are the ones asked for', async () => {
    const first = await siteAdd(
      'yard-a',
      '--out',
      outDir,
      '--tls-host',
      'Yard-Edge.lan',
      '--tls-host',
      'edge.yard-a.example',
      '--tls-ip',
      '127.0.0.1',
      '--tls-org',
      'Acme Freight',
    );
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    expect(first.out).toContain(`Created the organisation CA: ${caCertFile}`);
    expect(mode(caKeyFile)).toBe(0o600);
    expect(mode(join(cloudDir, 'tls'))).toBe(0o700);

    const ca = certificate(caCertFile);
    expect(ca.ca).toBe(true);
    expect(ca.subject).toContain('O=Acme Freight');
    // The phones' DER copy is the same certificate.
    expect(new X509Certificate(readFileSync(join(cloudDir, 'tls', 'organisation-ca.cer'))).raw).toEqual(
      ca.raw,
    );

    const leafFile = join(outDir, 'yard-a.edge.crt');
    const keyFile = join(outDir, 'yard-a.edge.key');
    const leaf = certificate(leafFile);
    expect(leaf.ca).toBe(false);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.subjectAltName).toBe('DNS:yard-edge.lan, DNS:edge.yard-a.example, IP Address:127.0.0.1');
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // extendedKeyUsage serverAuth
    const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
    expect(days).toBeLessThanOrEqual(825);
    expect(days).toBeGreaterThan(800);
    expect(mode(keyFile)).toBe(0o600);

    // The edge config names the files (the --out folder, as no --tls-edge-dir was given) and loads.
    const edgeFile = join(outDir, 'yard-a.edge.json');
    const edgeConfig = JSON.parse(readFileSync(edgeFile, 'utf8'));
    expect(edgeConfig.tls).toEqual({ certFile: leafFile, keyFile });
    expect(loadConfig({ YARD_CONFIG_FILE: edgeFile }).tls).toMatchObject({ certFile: leafFile, keyFile });
  });

  it('a later run reuses the same CA and never rewrites it; --tls-edge-dir names the files on the edge', async () => {
    const caBefore = readFileSync(caCertFile);
    const keyBefore = readFileSync(caKeyFile);
    const second = await siteAdd(
      'yard-b',
      '--out',
      outDir,
      '--tls-ip',
      '10.1.2.3',
      '--tls-edge-dir',
      '/etc/yard/',
    );
    expect(second.code).toBe(0);
    expect(second.out).toContain(`The organisation's CA: ${caCertFile}`);
    expect(readFileSync(caCertFile)).toEqual(caBefore);
    expect(readFileSync(caKeyFile)).toEqual(keyBefore);
    const leafB = certificate(join(outDir, 'yard-b.edge.crt'));
    expect(leafB.checkIssued(certificate(caCertFile))).toBe(true);
    expect(leafB.verify(certificate(caCertFile).publicKey)).toBe(true);
    expect(leafB.subjectAltName).toBe('IP Address:10.1.2.3');
    expect(leafB.serialNumber).not.toBe(certificate(join(outDir, 'yard-a.edge.crt')).serialNumber);
    expect(JSON.parse(readFileSync(join(outDir, 'yard-b.edge.json'), 'utf8')).tls).toEqual({
      certFile: '/etc/yard/yard-b.edge.crt',
      keyFile: '/etc/yard/yard-b.edge.key',
    });
  });

  it('--renew-certificate gives an existing site a new certificate and leaves its password and config', async () => {
    const configBefore = readFileSync(join(outDir, 'yard-a.edge.json'));
    const certBefore = certificate(join(outDir, 'yard-a.edge.crt'));
    const renewed = await siteAdd(
      'yard-a',
      '--renew-certificate',
      '--out',
      outDir,
      '--tls-host',
      'yard-edge.lan',
      '--tls-host',
      'edge.yard-a.example',
      '--tls-ip',
      '127.0.0.1',
    );
    expect(renewed.err).toBe('');
    expect(renewed.code).toBe(0);
    expect(renewed.out).toContain("The site's MQTT password and its edge config file are unchanged.");
    expect(readFileSync(join(outDir, 'yard-a.edge.json'))).toEqual(configBefore);
    const certAfter = certificate(join(outDir, 'yard-a.edge.crt'));
    expect(certAfter.serialNumber).not.toBe(certBefore.serialNumber);
    expect(certAfter.publicKey.export({ format: 'der', type: 'spki' })).not.toEqual(
      certBefore.publicKey.export({ format: 'der', type: 'spki' }),
    );
    expect(certAfter.checkIssued(certificate(caCertFile))).toBe(true);
    expect(certAfter.checkPrivateKey(createPrivateKey(readFileSync(join(outDir, 'yard-a.edge.key'))))).toBe(
      true,
    );
    expect(mode(join(outDir, 'yard-a.edge.key'))).toBe(0o600);

    const unknown = await siteAdd(
      'no-such-site',
      '--renew-certificate',
      '--out',
      outDir,
      '--tls-ip',
      '127.0.0.1',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('Site no-such-site does not exist.');
    expect(existsSync(join(outDir, 'no-such-site.edge.crt'))).toBe(false);
    const nameless = await siteAdd('yard-a', '--renew-certificate', '--out', outDir);
    expect(nameless.code).toBe(2);
    expect(nameless.err).toContain('--renew-certificate needs the names to certify');
  });

  it('refuses names that are not host names or addresses, and writes nothing', async () => {
    const bad = await siteAdd('yard-c', '--out', outDir, '--tls-host', 'not a host', '--tls-ip', '300.1.1.1');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--tls-host "not a host" is not a host name');
    expect(bad.err).toContain('--tls-ip "300.1.1.1" is not an IPv4 or IPv6 address');
    expect(existsSync(join(outDir, 'yard-c.edge.json'))).toBe(false);
    expect(existsSync(join(outDir, 'yard-c.edge.crt'))).toBe(false);

    const orphan = await siteAdd('yard-c', '--out', outDir, '--tls-org', 'Acme');
    expect(orphan.code).toBe(2);
    expect(orphan.err).toContain('--tls-org and --tls-edge-dir go with --tls-host or --tls-ip');
  });

  it('refuses to go on with half a CA (its certificate without its key)', async () => {
    const halfDir = mkdtempSync(join(dir, 'half-'));
    const first = await runProvisionCli(
      ['yard-h', '--out', halfDir, '--tls-ip', '127.0.0.1'],
      { YARD_ROLE: 'cloud', YARD_DATA_DIR: halfDir },
      { out: () => {}, err: () => {} },
    );
    expect(first).toBe(0);
    rmSync(join(halfDir, 'tls', 'organisation-ca.key'));
    let err = '';
    const second = await runProvisionCli(
      ['yard-i', '--out', halfDir, '--tls-ip', '127.0.0.1'],
      { YARD_ROLE: 'cloud', YARD_DATA_DIR: halfDir },
      { out: () => {}, err: (line) => (err += line) },
    );
    expect(second).toBe(1);
    expect(err).toContain('is incomplete');
    expect(existsSync(join(halfDir, 'tls', 'organisation-ca.key'))).toBe(false);
  });
});

describe('the edge over HTTPS with that certificate', () => {
  let edge: RunningEdge;
  let httpsPort: number;
  let redirectPort: number;
  const logged = captureLog('info');

  beforeAll(async () => {
    const config = loadConfig(
      {
        YARD_TLS_CERT_FILE: join(outDir, 'yard-a.edge.crt'),
        YARD_TLS_KEY_FILE: join(outDir, 'yard-a.edge.key'),
        YARD_HTTP_REDIRECT_PORT: '0',
      },
      {
        role: 'edge',
        dataDir: mkdtempSync(join(dir, 'edge-')),
        http: { port: 0, host: '127.0.0.1' },
        log: { level: 'silent' },
      },
    );
    edge = await startEdge(config, logged.log);
    httpsPort = Number(new URL(edge.url).port);
    redirectPort = Number(new URL(edge.redirectUrl!).port);
  });
  afterAll(() => edge?.stop());

  it('is trusted by a client given the organisation CA, for each name in the certificate', async () => {
    expect(edge.url).toBe(`https://127.0.0.1:${httpsPort}`);
    const ca = readFileSync(caCertFile, 'utf8');
    expect(await httpsStatus(httpsPort, { ca })).toBe(200);
    expect(await httpsStatus(httpsPort, { ca, servername: 'yard-edge.lan' })).toBe(200);
    expect(await httpsStatus(httpsPort, { ca, servername: 'edge.yard-a.example' })).toBe(200);
  });

  it('is refused without the CA, and for a name the certificate does not cover', async () => {
    expect(await httpsStatus(httpsPort)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    const ca = readFileSync(caCertFile, 'utf8');
    expect(await httpsStatus(httpsPort, { ca, servername: 'other.lan' })).toBe(
      'ERR_TLS_CERT_ALTNAME_INVALID',
    );
  });

  it('its plain-HTTP port redirects GET to the same host and path over HTTPS', async () => {
    expect(
      await plainRequest(redirectPort, { host: `yard-edge.lan:${redirectPort}`, path: '/driver/?task=7' }),
    ).toEqual({
      status: 308,
      location: `https://yard-edge.lan:${httpsPort}/driver/?task=7`,
      body: '',
    });
    expect((await plainRequest(redirectPort, { host: 'YARD-EDGE.LAN.' })).location).toBe(
      `https://yard-edge.lan:${httpsPort}/`,
    );
    expect((await plainRequest(redirectPort, { host: '127.0.0.1' })).location).toBe(
      `https://127.0.0.1:${httpsPort}/`,
    );
    // An absolute-form target keeps our host: only the path could come from the request.
    expect(
      (await plainRequest(redirectPort, { host: 'yard-edge.lan', path: 'http://evil.example/x' })).location,
    ).toBe(`https://yard-edge.lan:${httpsPort}/`);
  });

  it('never redirects to a host the certificate does not name, and refuses other methods', async () => {
    for (const host of [
      'evil.example',
      'evil.example@yard-edge.lan',
      'yard-edge.lan.evil.example',
      '10.9.9.9',
    ]) {
      const res = await plainRequest(redirectPort, { host });
      expect(res.status, host).toBe(400);
      expect(res.location).toBeUndefined();
      expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'host-not-covered' });
    }
    const post = await plainRequest(redirectPort, {
      host: 'yard-edge.lan',
      method: 'POST',
      path: '/api/auth/login',
    });
    expect(post.status).toBe(400);
    expect(post.location).toBeUndefined();
    expect(JSON.parse(post.body)).toMatchObject({
      code: 'https-required',
      detail: `This service is served over HTTPS: use https://yard-edge.lan:${httpsPort}.`,
    });
  });
  it('serves a renewed certificate after reloadCertificate (SIGHUP), and keeps it when new files are broken', async () => {
    const ca = readFileSync(caCertFile, 'utf8');
    const before = await servedSerial(httpsPort, ca);
    // Renewed without the second name: the served certificate and the redirect follow the files.
    const renewed = await siteAdd(
      'yard-a',
      '--renew-certificate',
      '--out',
      outDir,
      '--tls-host',
      'yard-edge.lan',
      '--tls-ip',
      '127.0.0.1',
    );
    expect(renewed.code).toBe(0);
    const fileSerial = certificate(join(outDir, 'yard-a.edge.crt')).serialNumber;
    expect(await servedSerial(httpsPort, ca)).toBe(before); // not before the reload
    edge.reloadCertificate!();
    expect(await servedSerial(httpsPort, ca)).toBe(fileSerial);
    expect(await httpsStatus(httpsPort, { ca, servername: 'edge.yard-a.example' })).toBe(
      'ERR_TLS_CERT_ALTNAME_INVALID',
    );
    expect((await plainRequest(redirectPort, { host: 'edge.yard-a.example' })).status).toBe(400);
    expect(logged.lines.some((l) => l.msg === 'HTTPS certificate reloaded')).toBe(true);

    const keyFile = join(outDir, 'yard-a.edge.key');
    const key = readFileSync(keyFile);
    writeFileSync(keyFile, 'not a key');
    try {
      edge.reloadCertificate!();
    } finally {
      writeFileSync(keyFile, key);
    }
    expect(await servedSerial(httpsPort, ca)).toBe(fileSerial);
    expect(logged.lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
      'HTTPS certificate not reloaded: the files cannot be used, the current one stays',
    ]);
  });
});

describe('a certificate the edge cannot use stops its start before anything opens', () => {
  async function startWith(env: Record<string, string>): Promise<{ err: unknown; dataDir: string }> {
    const dataDir = mkdtempSync(join(dir, 'bad-'));
    const config = loadConfig(env, {
      role: 'edge',
      dataDir,
      http: { port: 0, host: '127.0.0.1' },
      log: { level: 'silent' },
    });
    const err = await startEdge(config).then(
      (edge) => edge.stop().then(() => 'started'),
      (e: unknown) => e,
    );
    return { err, dataDir };
  }

  it('a key that is not the certificate’s says which files to fix', async () => {
    const { err, dataDir } = await startWith({
      YARD_TLS_CERT_FILE: join(outDir, 'yard-a.edge.crt'),
      YARD_TLS_KEY_FILE: join(outDir, 'yard-b.edge.key'),
    });
    expect(err).toBeInstanceOf(ConfigError);
    expect(startFailure(err)).toMatch(
      /YARD_TLS_KEY_FILE .*yard-b\.edge\.key is not the key of the certificate in .*yard-a\.edge\.crt/,
    );
    expect(existsSync(join(dataDir, 'yard.db'))).toBe(false);
  });

  it('missing files and files that are not PEM are each named', async () => {
    const missing = await startWith({
      YARD_TLS_CERT_FILE: join(outDir, 'no-such.crt'),
      YARD_TLS_KEY_FILE: join(outDir, 'no-such.key'),
    });
    expect((missing.err as ConfigError).problems).toEqual([
      `YARD_TLS_CERT_FILE ${join(outDir, 'no-such.crt')}: cannot read it (ENOENT).`,
      `YARD_TLS_KEY_FILE ${join(outDir, 'no-such.key')}: cannot read it (ENOENT).`,
    ]);
    const swapped = await startWith({
      YARD_TLS_CERT_FILE: join(outDir, 'yard-a.edge.key'),
      YARD_TLS_KEY_FILE: join(outDir, 'yard-a.edge.json'),
    });
    expect((swapped.err as ConfigError).problems).toEqual([
      expect.stringContaining('not a PEM certificate'),
      expect.stringContaining('not an unencrypted PEM private key'),
    ]);
    expect(existsSync(join(swapped.dataDir, 'yard.db'))).toBe(false);
  });

  it('a redirect port in use fails the start and leaves the HTTPS port closed again', async () => {
    const taken = createNetServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const takenPort = (taken.address() as { port: number }).port;
    const probe = createNetServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const httpsPort = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    try {
      const config = loadConfig(
        {
          YARD_TLS_CERT_FILE: join(outDir, 'yard-a.edge.crt'),
          YARD_TLS_KEY_FILE: join(outDir, 'yard-a.edge.key'),
          YARD_HTTP_REDIRECT_PORT: String(takenPort),
        },
        {
          role: 'edge',
          dataDir: mkdtempSync(join(dir, 'busy-')),
          http: { port: httpsPort, host: '127.0.0.1' },
          log: { level: 'silent' },
        },
      );
      const err = await startEdge(config).then(
        (edge) => edge.stop().then(() => 'started'),
        (e: unknown) => e,
      );
      expect(startFailure(err)).toMatch(/^Port in use: .*EADDRINUSE.*YARD_HTTP_REDIRECT_PORT/);
      // Nothing left listening on the HTTPS port.
      expect(await httpsStatus(httpsPort, { ca: readFileSync(caCertFile, 'utf8') })).toBe('ECONNREFUSED');
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it('a certificate without its key, or a redirect port without HTTPS, is a configuration error', () => {
    expect(() => loadConfig({ YARD_TLS_CERT_FILE: '/etc/yard/edge.crt' })).toThrow(
      /tls.keyFile \(YARD_TLS_KEY_FILE\): HTTPS needs both the certificate and its key/,
    );
    expect(() => loadConfig({ YARD_HTTP_REDIRECT_PORT: '80' })).toThrow(
      /tls.httpRedirectPort \(YARD_HTTP_REDIRECT_PORT\): only used with HTTPS/,
    );
  });

  it('an edge on the network without a certificate warns that phones get no secure context', async () => {
    const { log, warnings } = captureLog('warn');
    const edge = await startEdge(
      loadConfig(
        {},
        { role: 'edge', dataDir: mkdtempSync(join(dir, 'plain-')), http: { port: 0, host: '0.0.0.0' } },
      ),
      log,
    );
    await edge.stop();
    const warned = warnings().filter((l) => l.risk === 'no-secure-context');
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toMatch(/no offline use, push or location.*YARD_TLS_CERT_FILE/);
  });
});
