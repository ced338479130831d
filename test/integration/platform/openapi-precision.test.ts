import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * What the web apps' types are generated from must be precise enough to write a good client: the
 * headers of optimistic concurrency, response headers, the shapes of bodies a route writes itself,
 * and the events of the live stream.
 */
type Schema = { $ref?: string; type?: string; format?: string; oneOf?: Schema[]; properties?: any };
type Operation = {
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema: Schema }> }
  >;
};
let t: TestApp;
let admin: Client;
let doc: {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

beforeAll(async () => {
  t = await startTestApp();
  admin = new Client(t.url, t.adminToken);
  doc = (await admin.as(undefined).get('/v3/api-docs')).body;
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, op })),
  );

describe('the OpenAPI document, precise enough for a typed client', () => {
  it('every route that answers 412 takes If-Match and answers its ETag; the server does as documented', async () => {
    const concurrent = operations().filter(({ op }) => op.responses['412']);
    expect(concurrent.length).toBeGreaterThan(5);
    for (const { method, path, op } of concurrent) {
      expect(op.parameters, `${method} ${path}`).toContainEqual(
        expect.objectContaining({ in: 'header', name: 'If-Match', required: false }),
      );
      const ok = op.responses['200'];
      if (ok) expect(Object.keys(ok.headers ?? {}), `${method} ${path}`).toContain('ETag');
    }
    const carrier = await seed(admin).carrier();
    const patched = await admin.patch(
      `/api/carrier/${carrier.id}`,
      { name: 'Renamed Freight' },
      {
        'If-Match': `"v${carrier.version}"`,
      },
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.headers.get('etag')).toBe(`"v${patched.body.version}"`);
    const stale = await admin.patch(
      `/api/carrier/${carrier.id}`,
      { name: 'Stale' },
      {
        'If-Match': `"v${carrier.version}"`,
      },
    );
    expect(stale.status).toBe(412);
  });

  it("a route's declared response headers are documented", () => {
    const snapshot = doc.paths['/api/camera/{id}/snapshot']?.get;
    expect(Object.keys(snapshot?.responses['200']?.headers ?? {})).toContain('X-Attachment-Id');
  });

  it('bodies a route writes itself: JSON is an object, text a string, only bytes are binary', () => {
    const body = (path: string, type: string) =>
      doc.paths[path]?.get?.responses['200']?.content?.[type]?.schema;
    expect(body('/v3/api-docs', 'application/json')).toMatchObject({ type: 'object' });
    expect(body('/metrics', 'text/plain')).toEqual({ type: 'string' });
    expect(body('/v3/api-docs.yaml', 'application/yaml')).toEqual({ type: 'string' });
    expect(body('/api/attachment/{id}', 'application/octet-stream')).toEqual({
      type: 'string',
      format: 'binary',
    });
  });

  it('the sync status is a union by mode: what a linked edge always reports is required there', async () => {
    const variants = (doc.components.schemas.SyncStatus?.oneOf ?? []).map((v) => v.$ref?.split('/').at(-1));
    expect(variants).toEqual(['SyncStatusStandalone', 'SyncStatusLinked', 'SyncStatusCloud']);
    const linked = doc.components.schemas.SyncStatusLinked as Schema & { required?: string[] };
    expect(linked.required).toEqual(
      expect.arrayContaining(['mode', 'link', 'linkSince', 'lastAckAt', 'queued']),
    );
    // This app is a standalone edge: its answer is the standalone variant (responses are validated here).
    const status = await admin.get('/api/sync/status');
    expect(status.status, status.text).toBe(200);
    expect(status.body.mode).toBe('standalone');
    expect(status.body).not.toHaveProperty('link');
  });

  it('the live stream documents its events: LiveEvent, one component per type, with the data schema', () => {
    const stream = doc.paths['/api/events']?.get?.responses['200']?.content?.['text/event-stream']?.schema;
    expect(stream).toEqual({ $ref: '#/components/schemas/LiveEvent' });
    const variants = (doc.components.schemas.LiveEvent?.oneOf ?? []).map(
      (v) => v.$ref?.split('/').at(-1) ?? '',
    );
    const typeOf = (name: string) =>
      doc.components.schemas[name]?.properties?.type?.enum?.[0] ??
      doc.components.schemas[name]?.properties?.type?.const;
    const types = variants.map(typeOf);
    for (const type of [
      'movement.created',
      'task.assigned',
      'driver.session.started',
      'sync.link',
      'stream.reset',
      'session.ended',
    ])
      expect(types).toContain(type);
    expect(doc.components.schemas.MovementCreatedEvent?.properties?.data).toEqual({
      $ref: '#/components/schemas/Movement',
    });
    expect(doc.components.schemas.TaskAssignedEvent?.properties?.data).toEqual({
      $ref: '#/components/schemas/YardTask',
    });
    expect(Object.keys(doc.components.schemas.SyncLinkEvent?.properties?.data?.properties ?? {})).toEqual([
      'link',
      'since',
      'queued',
    ]);
  });
});
