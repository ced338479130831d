import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchImage } from '../../shared/cameras/http-image.js';
import { ALLOW_LOCAL_SETTING, deviceAddressPolicy } from '../../shared/net/outbound-policy.js';
import { startFakeOnvifCamera } from '../fixtures/fake-onvif-camera.js';
import { freePort } from '../helpers/ports.js';
import { verdict } from './lib.js';

/**
 * Snapshot overhead (docs/performance.md): what GET /api/camera/{id}/snapshot adds to the camera's own response
 * time. The built edge runs as pm2 starts it; a fake ONVIF camera (Digest, base64 nonces) answers on
 * 127.0.0.1. Per request, overhead = total time at the client - the camera exchange the edge timed
 * (X-Camera-Elapsed-Ms). As a cross-check, the same snapshot fetched straight from the camera with
 * the same client code is timed too, interleaved. Target: overhead p50 < 20 ms.
 * BENCH_SNAPSHOTS (400) sets the number of requests.
 */
const N = Number(process.env.BENCH_SNAPSHOTS ?? 400);
const NODE_ARGS: string[] = createRequire(import.meta.url)('../../deploy/ecosystem.config.cjs').apps[0]
  .node_args;
const dir = mkdtempSync(join(tmpdir(), 'yard-bench-snap-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;

const LOCAL = deviceAddressPolicy({ allowLoopbackAndLinkLocal: true });
const camera = await startFakeOnvifCamera({
  username: 'bench',
  password: 'bench-cam-pass',
  name: 'Bench Cam',
});
const child = spawn(process.execPath, [...NODE_ARGS, 'dist/edge/main.js'], {
  env: {
    ...process.env,
    YARD_DATA_DIR: dir,
    YARD_HTTP_PORT: String(port),
    YARD_HTTP_HOST: '127.0.0.1',
    YARD_ADMIN_USER: 'bench',
    YARD_ADMIN_PASSWORD: 'bench-password-1',
    YARD_LOG_LEVEL: 'warn',
  },
  stdio: 'inherit',
});

async function json(token: string | undefined, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, any>;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

try {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  const { token } = await json(undefined, 'POST', '/api/auth/login', {
    username: 'bench',
    password: 'bench-password-1',
  });
  const yard = await json(token, 'POST', '/api/yard', {
    code: 'SNAP',
    name: 'Snapshot bench',
    timeZone: 'UTC',
  });
  // The fake camera is on loopback, which the site must allow for cameras.
  await json(token, 'PUT', '/api/settings', { settings: { [ALLOW_LOCAL_SETTING]: true } });
  const cam = await json(token, 'POST', '/api/camera', {
    yardId: yard.id,
    name: 'Bench cam',
    onvif: { xaddr: camera.xaddr, username: 'bench', password: 'bench-cam-pass' },
  });
  const auth = { type: 'digest' as const, username: 'bench', password: 'bench-cam-pass' };

  const overhead: number[] = [];
  const viaApi: number[] = [];
  const direct: number[] = [];
  process.stdout.write(`snapshot: ${N} requests through the edge, ${N} straight to the camera `);
  for (let i = 0; i < N + 20; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/camera/${cam.id}/snapshot`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = Buffer.from(await res.arrayBuffer());
    const total = performance.now() - t0;
    if (res.status !== 200 || body.length === 0) throw new Error(`snapshot answered ${res.status}`);
    const cameraMs = Number(res.headers.get('x-camera-elapsed-ms'));
    const t1 = performance.now();
    await fetchImage(cam.onvif.snapshotUri, { auth, timeoutMs: 5000, policy: LOCAL });
    const straight = performance.now() - t1;
    if (i < 20) continue; // warm-up
    overhead.push(total - cameraMs);
    viaApi.push(total);
    direct.push(straight);
    if (i % 50 === 0) process.stdout.write('.');
  }
  process.stdout.write('\n');
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const ok = pct(overhead, 50) < 20;
  console.log(`  through the edge: p50 ${ms(pct(viaApi, 50))}, p99 ${ms(pct(viaApi, 99))}`);
  console.log(`  straight to the camera: p50 ${ms(pct(direct, 50))}, p99 ${ms(pct(direct, 99))}`);
  console.log(
    `  edge overhead (total - camera exchange): p50 ${ms(pct(overhead, 50))}, p99 ${ms(pct(overhead, 99))} (target p50 < 20 ms) ${verdict(ok)}`,
  );
  console.log(`  difference of medians: ${ms(pct(viaApi, 50) - pct(direct, 50))}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await camera.close();
  rmSync(dir, { recursive: true, force: true });
}
