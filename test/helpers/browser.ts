import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { freePorts } from './ports.js';

/** Debian's Chromium (installed by .ci/run); CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * UI.md's launch flags. playwright's launch() gives each browser a fresh temporary profile (the
 * fresh --user-data-dir of UI.md; playwright refuses that flag in launch()).
 */
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `args` are added to UI.md's flags; `env` replaces the browser's environment (HOME: its NSS store). */
export function launchChromium(
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...FLAGS, ...(options.args ?? [])],
    headless: true,
    ...(options.env ? { env: options.env } : {}),
  });
}

/**
 * A page in its own browser context (its own storage: one context is one clerk's browser).
 * axe-core's playwright runner needs pages made this way.
 */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, ...options });
  return context.newPage();
}

export const SCREENSHOT_DIR = resolve('test/system/screenshots');

/** Saves a full-page screenshot as test/system/screenshots/<name>.png (look at them). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** axe-core's serious and critical violations on the page as it is now (empty when none). */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** A page that records CSP violations (the DOM event, and Chromium's console message) and failed requests. */
export async function watchedPage(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/content security policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // The event stream is cut on each navigation; any other failed request is a problem.
  page.on('requestfailed', (r) => {
    if (!r.url().includes('/api/events')) problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().includes('/api/')) problems.push(`${r.status()}: ${r.url()}`);
  });
  // As text: this file is compiled without the DOM's types.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => {
      console.error('Content Security Policy violation: ' + e.violatedDirective + ' ' + e.blockedURI);
    });`,
  });
  return { page, problems };
}

export interface DemoEdge {
  url: string;
  admin: { username: string; password: string };
  dataDir: string;
  /** The edge's SQLite file, to check rows. */
  dbFile: string;
  /** What the process printed (addresses, logins). */
  output: () => string;
  stop(): Promise<void>;
}

/**
 * The standalone edge as a user starts it (`npm run demo:edge`: the edge process with a simulated
 * relay, a simulated ONVIF camera and demo data), on a free port with its own data folder.
 * `env`: more variables for the edge process (e.g. YARD_PUSH_ALLOW_LOCAL_ENDPOINTS, NODE_EXTRA_CA_CERTS).
 */
export async function startDemoEdge(options: { env?: Record<string, string> } = {}): Promise<DemoEdge> {
  const port = await freePorts(3); // the edge, then its simulated camera's
  const demo = await startDemo('edge/demo.ts', port, options.env ?? {}, 60_000);
  return { ...demo, url: `http://127.0.0.1:${port}`, dbFile: join(demo.dataDir, 'yard.db') };
}

export interface DemoCloud {
  url: string;
  /** The edge linked to it (site dal1). */
  edgeUrl: string;
  admin: { username: string; password: string };
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * `npm start` as a user runs it (the cloud with its embedded broker and the edge dal1 linked to
 * it, demo data), on free ports with its own data folder. The demo takes the port, the next one
 * (the edge) and the one after (its simulated camera).
 */
export async function startDemoCloud(options: { env?: Record<string, string> } = {}): Promise<DemoCloud> {
  const port = await freePorts(4);
  const env = { YARD_MQTT_PORT: String(port + 3), ...options.env };
  const demo = await startDemo('cloud/demo.ts', port, env, 110_000);
  return { ...demo, url: `http://127.0.0.1:${port}`, edgeUrl: `http://127.0.0.1:${port + 1}` };
}

/** A demo script as a child process, ready once it prints its banner; stop() ends it and removes its data. */
async function startDemo(script: string, port: number, env: Record<string, string>, readyMs: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'yard-ui-'));
  const admin = { username: 'admin', password: 'demo-admin-pass' };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      YARD_DATA_DIR: dataDir,
      YARD_HTTP_PORT: String(port),
      YARD_HTTP_HOST: '127.0.0.1',
      YARD_ADMIN_USER: admin.username,
      YARD_ADMIN_PASSWORD: admin.password,
      YARD_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const deadline = Date.now() + readyMs;
  while (!out.includes('Stop with Ctrl+C')) {
    if (child.exitCode !== null) throw new Error(`${script} exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not start within ${readyMs / 1000} s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    admin,
    dataDir,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Logs in on the login form the page shows. */
export async function logIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}
