import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The published document is what generated clients are built from: it must say what each route
 * really answers, and show every request body with a description and a working example.
 */
type MediaType = {
  schema?: { $ref?: string };
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
};
type Response = { description: string; content?: Record<string, MediaType> };
type Operation = {
  responses: Record<string, Response>;
  requestBody?: { description?: string; content: Record<string, MediaType> };
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { description?: string; example?: unknown; examples?: unknown[] }> };
};

let t: TestApp;
let admin: Client;
let doc: Doc;

beforeAll(async () => {
  t = await startTestApp();
  admin = new Client(t.url, t.adminToken);
  const res = await admin.as(undefined).get('/v3/api-docs');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, op })),
  );

const successes = (op: Operation) =>
  Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));

/** The documented 2xx media types of an operation (a 204 has no content, whatever it claims). */
function documentedBodies(op: Operation): Array<{ status: number; mediaType: string }> {
  return successes(op)
    .filter(([status]) => status !== '204')
    .flatMap(([status, r]) =>
      Object.keys(r.content ?? {}).map((mediaType) => ({ status: Number(status), mediaType })),
    );
}

/** Does an answer's Content-Type match a documented media type (octet-stream stands for any bytes)? */
function matches(documented: string, actual: string | null): boolean {
  const base = (actual ?? '').split(';')[0]!.trim();
  return documented === base || documented === 'application/octet-stream';
}

async function expectAnswerDocumented(method: string, path: string, url: string): Promise<void> {
  const op = doc.paths[path]![method]!;
  const controller = new AbortController();
  // Streams (server-sent events) answer their headers at once and never end: read only those.
  const res = await fetch(`${t.url}${url}`, {
    headers: { authorization: `Bearer ${t.adminToken}` },
    signal: controller.signal,
  });
  const hasBody = res.status !== 204 && res.status !== 304 && res.headers.get('content-type') !== null;
  controller.abort();
  if (res.status >= 300) return; // problems are checked elsewhere; here: what a success carries
  const bodies = documentedBodies(op);
  const label = `${method.toUpperCase()} ${path} answered ${res.status} ${res.headers.get('content-type')}`;
  expect(Object.keys(op.responses), label).toContain(String(res.status));
  if (hasBody) {
    expect(
      bodies.some((b) => b.status === res.status && matches(b.mediaType, res.headers.get('content-type'))),
      `${label}, documented ${JSON.stringify(bodies)}`,
    ).toBe(true);
  }
}

describe('GET answers as documented', () => {
  it('every GET documents a 2xx answer with a media type (none is a bodiless 204)', () => {
    const bare = operations()
      .filter(({ method, op }) => method === 'get' && documentedBodies(op).length === 0)
      .map(({ path, op }) => `${path} ${successes(op).map(([s]) => s)}`);
    expect(bare).toEqual([]);
  });

  it('the bytes, text, page and event routes document 200 with their real media type', () => {
    const expected: Record<string, string> = {
      '/metrics': 'text/plain',
      '/v3/api-docs': 'application/json',
      '/v3/api-docs.yaml': 'application/yaml',
      '/docs': 'text/html',
      '/api/events': 'text/event-stream',
      '/api/attachment/{id}': 'application/octet-stream',
      '/api/sync/blob/{sha256}': 'application/octet-stream',
      '/api/ui/assets/binary/{fullPath}': 'application/octet-stream',
      '/api/camera/{id}/snapshot': 'image/jpeg',
      '/api/camera/integration/{integrationId}/{providerCameraId}/snapshot': 'image/jpeg',
    };
    for (const [path, mediaType] of Object.entries(expected)) {
      const op = doc.paths[path]?.get;
      expect(op, path).toBeDefined();
      expect(documentedBodies(op!), path).toContainEqual({ status: 200, mediaType });
      expect(op!.responses['204'], path).toBeUndefined();
    }
  });

  it('each GET without path parameters answers a status and media type the document lists', async () => {
    const plain = operations().filter(({ method, path }) => method === 'get' && !path.includes('{'));
    expect(plain.length).toBeGreaterThan(20);
    for (const { path } of plain) await expectAnswerDocumented('get', path, path);
  });

  it('a downloaded attachment and a UI asset answer as documented', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9, 9, 9])]), 'gate.jpg');
    const up = await admin.post('/api/attachment', form);
    expect(up.status).toBe(201);
    await expectAnswerDocumented('get', '/api/attachment/{id}', `/api/attachment/${up.body.id}`);
    await expectAnswerDocumented(
      'get',
      '/api/ui/assets/binary/{fullPath}',
      '/api/ui/assets/binary/index.html',
    );
  });
});

describe('request bodies', () => {
  const schemaOf = (media: MediaType) =>
    media.schema?.$ref ? doc.components.schemas[media.schema.$ref.split('/').pop()!] : media.schema;

  it('every request body has a description and an example that the route itself accepts', () => {
    const missing: string[] = [];
    for (const { method, path, op } of operations()) {
      if (!op.requestBody) continue;
      const name = `${method.toUpperCase()} ${path}`;
      const [media] = Object.values(op.requestBody.content);
      const schema = schemaOf(media!) as { description?: string; example?: unknown } | undefined;
      if (!op.requestBody.description) missing.push(`${name}: no description`);
      const example = media!.example ?? schema?.example;
      if (example === undefined) {
        missing.push(`${name}: no example`);
        continue;
      }
      const route = t.routes.find((r) => r.method === method && r.path === path);
      const parsed = route?.body?.safeParse(example);
      if (!parsed?.success) missing.push(`${name}: the example is refused: ${parsed?.error.message}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('problems', () => {
  it('both logins document 401 for wrong credentials', () => {
    for (const path of ['/api/auth/login', '/api/auth/driver-login']) {
      const r401 = doc.paths[path]!.post!.responses['401'];
      expect(r401, path).toBeDefined();
      expect(r401!.description).toMatch(/wrong/i);
      expect(Object.keys(r401!.content ?? {})).toEqual(['application/problem+json']);
    }
  });

  it('writes document 507 storage-full; reads do not', () => {
    for (const { method, path, op } of operations()) {
      if (method === 'get') expect(op.responses['507'], path).toBeUndefined();
      else expect(op.responses['507']?.description, `${method} ${path}`).toMatch(/storage-full/);
    }
  });
});
