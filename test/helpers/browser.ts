import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

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
  const dataDir = mkdtempSync(join(tmpdir(), 'yard-ui-'));
  const port = 21000 + Math.floor(Math.random() * 20000);
  const admin = { username: 'admin', password: 'demo-admin-pass' };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'edge/demo.ts'], {
    env: {
      ...process.env,
      YARD_DATA_DIR: dataDir,
      YARD_HTTP_PORT: String(port),
      YARD_HTTP_HOST: '127.0.0.1',
      YARD_ADMIN_USER: admin.username,
      YARD_ADMIN_PASSWORD: admin.password,
      YARD_LOG_LEVEL: 'warn',
      ...options.env,
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
  const deadline = Date.now() + 60_000;
  while (!out.includes('Stop with Ctrl+C')) {
    if (child.exitCode !== null) throw new Error(`the demo edge exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the demo edge did not start within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    admin,
    dataDir,
    dbFile: join(dataDir, 'yard.db'),
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
