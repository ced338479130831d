import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, screenshot } from '../helpers/browser.js';
import { freePorts } from '../helpers/ports.js';

/**
 * The driver app over HTTPS on the yard LAN, as an operator sets it up: `npm run site:add` issues
 * the edge's certificate from the organisation's CA, the edge process starts with it, and Debian's
 * Chromium whose certificate store (NSS, $HOME/.pki/nssdb, like a phone's installed CA) trusts that
 * CA opens the app as a secure context. The same browser without the CA refuses the certificate.
 */
const HOST = 'yard-edge.test';
const dir = mkdtempSync(join(tmpdir(), 'yard-ui-https-'));
const cloudDir = join(dir, 'cloud');
const outDir = join(dir, 'out');
const caFile = join(cloudDir, 'tls', 'organisation-ca.crt');
const httpsPort = await freePorts(3); // the third: the second edge's, httpsPort + 2
const redirectPort = httpsPort + 1;
let edge: ChildProcess | undefined;
let edgeOutput = '';

/** A HOME for Chromium: with `ca`, an NSS database that trusts it as a CA for websites. */
function browserHome(name: string, ca?: string): string {
  const home = join(dir, name);
  if (ca) {
    const nssdb = join(home, '.pki', 'nssdb');
    mkdirSync(nssdb, { recursive: true });
    execFileSync('certutil', ['-N', '--empty-password', '-d', `sql:${nssdb}`]);
    execFileSync('certutil', ['-A', '-n', 'yard-ca', '-t', 'C,,', '-i', ca, '-d', `sql:${nssdb}`]);
  } else {
    mkdirSync(home, { recursive: true });
  }
  return home;
}

async function launchWithHome(home: string): Promise<Browser> {
  return launchChromium({
    // The edge's DNS name as a yard's LAN DNS would resolve it.
    args: [`--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
  });
}

/** Status of GET /readyz over HTTPS trusting the CA, or undefined while the edge is not up. */
function ready(ca: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = httpsGet({ host: '127.0.0.1', port: httpsPort, path: '/readyz', ca, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
  });
}

/** The serial number of the certificate the edge sends on a new connection. */
function servedSerial(ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpsGet({ host: '127.0.0.1', port: httpsPort, path: '/readyz', ca, agent: false }, (res) => {
      resolve((res.socket as TLSSocket).getPeerCertificate().serialNumber);
      res.resume();
    });
    req.on('error', reject);
  });
}

beforeAll(async () => {
  // The operator's command, as a process, with the cloud's configuration.
  const added = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'cloud/provision-site-cli.ts',
      'yard-https',
      '--out',
      outDir,
      '--tls-host',
      HOST,
      '--tls-ip',
      '127.0.0.1',
      '--tls-org',
      'Acme Freight',
    ],
    { env: { ...process.env, YARD_ROLE: 'cloud', YARD_DATA_DIR: cloudDir }, encoding: 'utf8' },
  );
  expect(added).toContain('Created the organisation CA');

  edge = spawn(process.execPath, ['--import', 'tsx', 'edge/main.ts'], {
    env: {
      ...process.env,
      YARD_DATA_DIR: join(dir, 'edge'),
      YARD_HTTP_PORT: String(httpsPort),
      YARD_HTTP_HOST: '127.0.0.1',
      YARD_TLS_CERT_FILE: join(outDir, 'yard-https.edge.crt'),
      YARD_TLS_KEY_FILE: join(outDir, 'yard-https.edge.key'),
      YARD_HTTP_REDIRECT_PORT: String(redirectPort),
      YARD_ADMIN_PASSWORD: 'https-admin-pass',
      YARD_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  edge.stdout?.on('data', (d) => (edgeOutput += String(d)));
  edge.stderr?.on('data', (d) => (edgeOutput += String(d)));
  const ca = readFileSync(caFile, 'utf8');
  const deadline = Date.now() + 30_000;
  while ((await ready(ca)) !== 200) {
    if (edge.exitCode !== null) throw new Error(`the edge exited (${edge.exitCode}):\n${edgeOutput}`);
    if (Date.now() > deadline) throw new Error(`the edge did not start within 30 s:\n${edgeOutput}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  if (edge && edge.exitCode === null) {
    const exited = new Promise((r) => edge!.once('exit', r));
    edge.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (edge.exitCode === null) edge.kill('SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the driver app over HTTPS on the LAN', () => {
  it('opens as a secure context in a browser that trusts the organisation CA, by name and by address', async () => {
    const browser = await launchWithHome(browserHome('trusting', caFile));
    try {
      const page = await openPage(browser, {
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        isMobile: true,
      });
      const response = await page.goto(`https://${HOST}:${httpsPort}/driver/`);
      expect(response?.status()).toBe(200);
      // The app itself came up (its first heading is on screen), not just a response.
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      // What a secure context gives the driver app: service workers (offline, push) and location.
      expect(
        await page.evaluate(() => ({
          secure: window.isSecureContext,
          serviceWorker: 'serviceWorker' in navigator,
          protocol: location.protocol,
        })),
      ).toEqual({ secure: true, serviceWorker: true, protocol: 'https:' });
      await screenshot(page, 'driver-https');

      // The certificate's IP address works too (a phone that has no name for the edge).
      expect((await page.goto(`https://127.0.0.1:${httpsPort}/driver/`))?.status()).toBe(200);
      expect(await page.evaluate(() => window.isSecureContext)).toBe(true);

      // The address typed without https:// lands on the HTTPS app.
      await page.goto(`http://${HOST}:${redirectPort}/driver/`);
      expect(page.url()).toBe(`https://${HOST}:${httpsPort}/driver/`);
      expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('an edge given a key that is not its certificate’s does not start, and says which file to fix', async () => {
    const caKey = join(cloudDir, 'tls', 'organisation-ca.key');
    const child = spawn(process.execPath, ['--import', 'tsx', 'edge/main.ts'], {
      env: {
        ...process.env,
        YARD_DATA_DIR: join(dir, 'edge-bad'),
        YARD_HTTP_PORT: String(httpsPort + 2),
        YARD_HTTP_HOST: '127.0.0.1',
        YARD_TLS_CERT_FILE: join(outDir, 'yard-https.edge.crt'),
        YARD_TLS_KEY_FILE: caKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += String(d)));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(stderr).toContain(`YARD_TLS_KEY_FILE ${caKey} is not the key of the certificate in`);
    expect(existsSync(join(dir, 'edge-bad', 'yard.db'))).toBe(false);
  });

  it('a renewed certificate is served after SIGHUP, without a restart', async () => {
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'cloud/provision-site-cli.ts',
        'yard-https',
        '--renew-certificate',
        '--out',
        outDir,
        '--tls-host',
        HOST,
        '--tls-ip',
        '127.0.0.1',
      ],
      { env: { ...process.env, YARD_ROLE: 'cloud', YARD_DATA_DIR: cloudDir }, encoding: 'utf8' },
    );
    const renewed = new X509Certificate(readFileSync(join(outDir, 'yard-https.edge.crt'))).serialNumber;
    const ca = readFileSync(caFile, 'utf8');
    expect(await servedSerial(ca)).not.toBe(renewed);
    edge!.kill('SIGHUP');
    await expect.poll(() => servedSerial(ca), { timeout: 10_000 }).toBe(renewed);
    expect(edge!.exitCode).toBeNull();
  });

  it('is refused with a certificate error by a browser that does not have the CA', async () => {
    const browser = await launchWithHome(browserHome('stranger'));
    try {
      const page = await openPage(browser, {
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        isMobile: true,
      });
      const failure = await page.goto(`https://${HOST}:${httpsPort}/driver/`).then(
        () => 'loaded',
        (err: Error) => err.message,
      );
      expect(failure).toMatch(/net::ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await browser.close();
    }
  });
});
