import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type DemoEdge, launchChromium, openPage, startDemoEdge } from '../helpers/browser.js';
import { verdict } from './lib.js';

/**
 * The driver app in Debian's Chromium (phone viewport) against the demo edge as a user starts it
 * (docs/performance.md): time from a dispatcher's assignment over the API to the task's card on the driver's
 * screen, over loopback. Both ends are read on the page's one clock (performance.now()): the
 * page itself sends the dispatcher's POST (with the dispatcher's token), and a MutationObserver
 * notes the frame where the task's notes appear. So no clock alignment between node and the
 * browser is needed; the POST's own answer time is reported beside it. The card appears from the
 * live event (SSE), not from a reload.
 * Also prints the driver app's first-load size from dist/ui (gzip). Run: npx tsx test/bench/ui-driver.ts
 * (needs `npm run build:ui`). BENCH_ASSIGNMENTS (30) assignments, after 3 to warm up.
 */
const ASSIGNMENTS = Number(process.env.BENCH_ASSIGNMENTS ?? 30);
const WARM_UP = 3;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function api(edge: DemoEdge, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${edge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** The driver app's first load as the build wrote it: driver/index.html's scripts, their imports and CSS. */
function firstLoadGzip(): number {
  const root = 'dist/ui';
  const html = readFileSync(join(root, 'driver/index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map(
    (m) => m[1] as string,
  );
  return files.reduce((sum, f) => sum + gzipSync(readFileSync(join(root, f)), { level: 9 }).length, 0);
}

const edge = await startDemoEdge();
const browser = await launchChromium();
try {
  const login = async (path: string, body: unknown) => {
    const res = await fetch(`${edge.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { token: string; principal: { driverId?: string } };
  };
  const office = await login('/api/auth/login', edge.admin);
  const driver = await login('/api/auth/driver-login', { driverCode: 'J101', pin: '1111' });
  const driverId = driver.principal.driverId as string;
  const yardId = ((await api(edge, office.token, 'GET', '/api/yard')) as { items: { id: string }[] }).items[0]
    ?.id as string;
  await api(edge, driver.token, 'POST', '/api/yard-task/driver/session/start', {
    yardId,
    deviceId: 'bench-phone',
  });
  // The demo's queued jobs would be handed to the driver one by one: the office takes them back.
  const open = (await api(
    edge,
    office.token,
    'GET',
    `/api/yard-task?yardId=${yardId}&status=QUEUED,ASSIGNED,IN_PROGRESS&limit=500`,
  )) as { items: { id: string; status: string }[] };
  for (const t of [...open.items].sort(
    (a, b) => Number(a.status !== 'QUEUED') - Number(b.status !== 'QUEUED'),
  ))
    await api(edge, office.token, 'PATCH', `/api/yard-task/${t.id}`, {
      status: 'CANCELLED',
      cancelReason: 'bench',
    });

  const page = await openPage(browser, {
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
  });
  await page.addInitScript(
    (s) => localStorage.setItem('yard.session', s),
    JSON.stringify({ ...driver, username: 'J101' }),
  );
  await page.goto(`${edge.url}/driver/`);
  await page.getByText('No task for you right now.').waitFor();
  // The live stream is open once the badge says so; give it a moment to be subscribed server-side.
  await page.waitForFunction(() => document.body.textContent?.includes('On shift'));
  await page.waitForTimeout(500);

  const totals: number[] = [];
  const posts: number[] = [];
  for (let i = 0; i < ASSIGNMENTS + WARM_UP; i++) {
    const notes = `Bench assignment ${i}`;
    const body = { yardId, type: 'inspect', priority: 2, notes, driverId };
    const timing = await page.evaluate(
      ({ body, token, notes }) =>
        // No named functions in here: tsx would wrap them in a helper the page does not have.
        Promise.race([
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error(`the card for "${notes}" did not appear within 10 s`)), 10_000),
          ),
          Promise.all([
            new Promise<number>((resolve) => {
              const observer = new MutationObserver(() => {
                if (document.querySelector('article.task-card')?.textContent?.includes(notes)) {
                  observer.disconnect();
                  resolve(performance.now());
                }
              });
              observer.observe(document.body, { childList: true, subtree: true, characterData: true });
            }),
            Promise.resolve(performance.now()).then(async (started) => {
              const res = await fetch('/api/yard-task', {
                method: 'POST',
                headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
                body: JSON.stringify(body),
              });
              const answered = performance.now();
              if (!res.ok) throw new Error(`POST answered ${res.status}`);
              return { started, answered, id: ((await res.json()) as { id: string }).id };
            }),
          ]).then(([shownAt, post]) => ({
            total: shownAt - post.started,
            post: post.answered - post.started,
            id: post.id,
          })),
        ]),
      { body, token: office.token, notes },
    );
    if (i >= WARM_UP) {
      totals.push(timing.total);
      posts.push(timing.post);
    }
    // The driver finishes it (over the API) so the next assignment is the card again.
    await api(edge, driver.token, 'POST', '/api/yard-task/driver/start', { taskIds: [timing.id] });
    await api(edge, driver.token, 'POST', '/api/yard-task/driver/complete', { taskIds: [timing.id] });
    await page.getByText('No task for you right now.').waitFor();
  }
  const size = firstLoadGzip();
  const f = (n: number) => `${n.toFixed(1)} ms`;
  console.log(
    `driver app first load: ${(size / 1000).toFixed(1)} kB gzip (JS + CSS) ${verdict(size <= 40_000)} [<= 40 kB]`,
  );
  console.log(
    `assignment over the API to the card on the driver's screen (${ASSIGNMENTS} assignments, loopback): p50 ${f(percentile(totals, 50))}, p95 ${f(percentile(totals, 95))}, max ${f(Math.max(...totals))} ${verdict(percentile(totals, 95) < 1000)} [p95 < 1 s]`,
  );
  console.log(
    `  of which the dispatcher's POST answered in: p50 ${f(percentile(posts, 50))}, p95 ${f(percentile(posts, 95))}`,
  );
} finally {
  await browser.close();
  await edge.stop();
}
