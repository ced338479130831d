import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.js';
import {
  DEMO_VAPID_FILE,
  demoVapidKeys,
  demoVapidOverrides,
} from '../../../shared/modules/push/demo-vapid.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'yard-vapid-'));
  dirs.push(dir);
  return join(dir, 'data');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the demo's VAPID keys", () => {
  it('are made once, kept owner-only in the data folder, and the same at the next start', () => {
    const dataDir = freshDir();
    const first = demoVapidKeys(dataDir);
    expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(first.privateKey, 'base64url')).toHaveLength(32);
    const file = join(dataDir, DEMO_VAPID_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(first);
    expect(demoVapidKeys(dataDir)).toEqual(first);
  });

  it('as overrides leave the rest of the push settings from the environment alone', () => {
    const dataDir = freshDir();
    const config = loadConfig(
      { YARD_VAPID_SUBJECT: 'mailto:ops@example.com', YARD_PUSH_ALLOW_LOCAL_ENDPOINTS: 'true' },
      demoVapidOverrides(dataDir),
    );
    expect(config.push).toEqual({
      vapidPublicKey: demoVapidKeys(dataDir).publicKey,
      vapidPrivateKey: demoVapidKeys(dataDir).privateKey,
      subject: 'mailto:ops@example.com',
      allowLocalEndpoints: true,
    });
  });
});
