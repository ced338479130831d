import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import webpush from 'web-push';

/** Where a demo keeps its VAPID key pair, inside its data folder. */
export const DEMO_VAPID_FILE = 'demo-vapid-keys.json';

/**
 * The demo's VAPID keys (push config), made once with web-push and kept in `<dataDir>/demo-vapid-keys.json`
 * (owner-only), so push works out of the box and phones' subscriptions survive restarts: a new key
 * would void every subscription made with the old one. Production sets YARD_VAPID_* instead.
 */
export function demoVapidKeys(dataDir: string): { publicKey: string; privateKey: string } {
  const file = join(dataDir, DEMO_VAPID_FILE);
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { publicKey?: unknown; privateKey?: unknown };
    if (typeof kept.publicKey === 'string' && typeof kept.privateKey === 'string') {
      return { publicKey: kept.publicKey, privateKey: kept.privateKey };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const keys = webpush.generateVAPIDKeys();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  return keys;
}

/**
 * The demo's keys as config overrides, by path: an override `push: {...}` would replace the whole
 * push section, and with it YARD_VAPID_SUBJECT or YARD_PUSH_ALLOW_LOCAL_ENDPOINTS from the environment.
 */
export function demoVapidOverrides(dataDir: string): Record<string, string> {
  const keys = demoVapidKeys(dataDir);
  return { 'push.vapidPublicKey': keys.publicKey, 'push.vapidPrivateKey': keys.privateKey };
}
