import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUserWorded } from '../../../shared/ui/common/api/words.js';
import { Client } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The server's own words on a 400 `validation-failed` (docs/api.md): zod's default messages
 * (shared/http/zod-words.ts) and the services' rules read as sentences for people, since the apps
 * show them beside the field and integrators read them in the /docs: no "expected", no field
 * names in camelCase, no ids, no HTTP verbs (the apps' check, common/api/words.ts).
 */
describe('validation messages in people’s words', () => {
  let t: TestApp;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp();
    admin = new Client(t.url, t.adminToken);
  });
  afterAll(() => t.close());

  function expectWorded(res: { status: number; body: any }) {
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation-failed');
    const messages = (res.body.errors as { message: string; code?: string }[])
      // An unknown key is named as sent: integrators need it, and the apps never send one.
      .filter((e) => e.code !== 'unrecognized_keys')
      .map((e) => e.message);
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) {
      expect(m).not.toMatch(/expected|Too small|Too big|Invalid input|Invalid option/i);
      expect(isUserWorded(m), m).toBe(true);
    }
    return messages;
  }

  it('an empty required name, a wrong type, an unknown choice', async () => {
    const messages = expectWorded(
      await admin.post('/api/driver', { kind: 'lorry', firstName: '', lastName: 7 }),
    );
    expect(messages).toContain('Must not be empty.');
    expect(messages).toContain('Must be text.');
  });

  it('a licence number without its region, on the record and on the driver check', async () => {
    const created = expectWorded(
      await admin.post('/api/driver', {
        kind: 'carrier',
        firstName: 'Dale',
        lastName: 'Brooks',
        licenseNumber: 'TX123',
      }),
    );
    expect(created.join(' ')).toMatch(/licence/i);
    const checked = expectWorded(await admin.get('/api/driver/check?licenseNumber=TX123'));
    expect(checked).toEqual(['Give the licence number and the licence region together.']);
  });

  it('a missing body field and a bad format', async () => {
    const messages = expectWorded(await admin.post('/api/carrier', { contact: { email: 'not-an-email' } }));
    expect(messages).toContain('Required.');
    expect(messages.some((m) => /email address/.test(m))).toBe(true);
  });
});
