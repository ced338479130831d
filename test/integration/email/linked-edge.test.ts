import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, query } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { serveLinkedEdge } from '../billing/fixture.js';

/**
 * Email to carriers is sent where the integrators' side runs: the cloud or a standalone edge. An
 * edge linked to a cloud answers the email routes 409 `cloud-owned` and changes nothing (the cloud
 * mails the no-shows its sites report).
 */
describe('email at a linked edge', () => {
  let standalone: TestApp;
  let edge: Awaited<ReturnType<typeof serveLinkedEdge>>;
  const settings = {
    enabled: true,
    host: '10.0.0.5',
    port: 587,
    security: 'starttls',
    fromAddress: 'gate@yard.example.com',
  };

  beforeAll(async () => {
    standalone = await startTestApp();
    const admin = new Client(standalone.url, standalone.adminToken);
    expect((await admin.put('/api/settings/email', settings)).status).toBe(200);
    edge = await serveLinkedEdge(standalone);
  });
  afterAll(async () => {
    await edge?.close();
    await standalone?.close();
  });

  it('answers every email route 409 cloud-owned and changes nothing', async () => {
    const id = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';
    const answers = await Promise.all([
      edge.admin.get('/api/settings/email'),
      edge.admin.put('/api/settings/email', { ...settings, enabled: false }),
      edge.admin.post('/api/settings/email/test', { to: 'ops@example.com' }),
      edge.admin.get('/api/settings/email/message'),
      edge.admin.post(`/api/settings/email/message/${id}/retry`),
    ]);
    for (const res of answers) {
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe('cloud-owned');
    }
    expect(answers[0]!.body.detail).toMatch(/^Email to carriers is sent by the cloud/);
    expect(await query(standalone.db, 'SELECT enabled, version FROM email_settings')).toEqual([
      { enabled: 1, version: 1 },
    ]);
  });
});
