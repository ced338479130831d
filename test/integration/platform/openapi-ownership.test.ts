import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownedRoutePaths } from '../../../shared/http/route-ownership.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The OpenAPI document names the 409 `cloud-owned` / `edge-owned` answers of the write routes of
 * owned records (docs/domain.md "Records and who owns them"). The expected list is transcribed from the writes that
 * sync/ownership.test.ts proves are refused, not read back from the registrar's table.
 */

const BOTH = ['cloud-owned', 'edge-owned'];
const CLOUD = ['cloud-owned'];
const EDGE = ['edge-owned'];

const EXPECTED: Record<string, string[]> = {
  'post /api/yard': CLOUD,
  'patch /api/yard/{id}': CLOUD,
  'delete /api/yard/{id}': CLOUD,
  'post /api/yard/{id}/location': CLOUD,
  'patch /api/yard/{id}/location/{locationId}': CLOUD,
  'delete /api/yard/{id}/location/{locationId}': CLOUD,
  // Gates are the edge's; their camera list binds cameras, and a provider camera is the cloud's.
  'post /api/yard/{id}/gate': BOTH,
  'patch /api/yard/{id}/gate/{gateId}': BOTH,
  'delete /api/yard/{id}/gate/{gateId}': BOTH,
  'post /api/carrier': CLOUD,
  'patch /api/carrier/{id}': CLOUD,
  'delete /api/carrier/{id}': CLOUD,
  'post /api/user': CLOUD,
  'patch /api/user/{id}': CLOUD,
  'delete /api/user/{id}': CLOUD,
  'post /api/auth/api-key': CLOUD,
  'delete /api/auth/api-key/{id}': CLOUD,
  'post /api/integration': CLOUD,
  'patch /api/integration/{id}': CLOUD,
  'delete /api/integration/{id}': CLOUD,
  'post /api/camera': BOTH,
  'patch /api/camera/{id}': BOTH,
  'delete /api/camera/{id}': BOTH,
  'put /api/settings': BOTH,
  'post /api/movement': EDGE,
  'post /api/truck/{truckId}/inspections': EDGE,
  'post /api/yard-task/driver/session/start': EDGE,
  'post /api/yard-task/driver/session/end': EDGE,
  'post /api/yard-task/driver/session/locations': EDGE,
  'post /api/yard-task/driver/last-check': EDGE,
  'post /api/yard-task/driver/notification-token': EDGE,
};

type Operation = {
  responses: Record<string, { description: string }>;
  'x-ownership'?: { entities: string[]; codes: string[] };
};

let t: TestApp;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  t = await startTestApp({ login: false });
  paths = (t.openapi() as { paths: typeof paths }).paths;
});
afterAll(async () => {
  await t?.close();
});

describe('OpenAPI: ownership answers', () => {
  it('documents 409 with the ownership codes on exactly the write routes of owned records', () => {
    const documented: Record<string, string[]> = {};
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(operations)) {
        if (op['x-ownership']) documented[`${method} ${path}`] = op['x-ownership'].codes;
      }
    }
    expect(documented).toEqual(EXPECTED);
    for (const key of Object.keys(EXPECTED)) {
      const [method, path] = key.split(' ') as [string, string];
      const conflict = paths[path]![method]!.responses['409'];
      expect(conflict, key).toBeDefined();
      for (const code of EXPECTED[key]!) expect(conflict!.description, key).toContain(`\`${code}\``);
      expect(conflict!.description, key).toMatch(/^Conflict with the current state\. Also /);
    }
  });

  it('names the records each side owns', () => {
    const yard = paths['/api/yard/{id}']!.delete!;
    expect(yard['x-ownership']).toEqual({ entities: ['yard'], codes: CLOUD });
    expect(yard.responses['409']!.description).toContain(
      '`cloud-owned` at an edge linked to a cloud: yard records are written in the cloud only',
    );
    const camera = paths['/api/camera/{id}']!.patch!.responses['409']!.description;
    expect(camera).toContain('provider camera records are written in the cloud only');
    expect(camera).toContain('`edge-owned` at the cloud: ONVIF camera and gate records');
    const settings = paths['/api/settings']!.put!.responses['409']!.description;
    expect(settings).toContain('global setting records are written in the cloud only');
    expect(settings).toContain("site setting records are written at their site's edge only");
  });

  it('leaves reads, unowned writes and commands alone', () => {
    for (const [method, path] of [
      ['get', '/api/yard'],
      ['get', '/api/yard/{id}'],
      ['post', '/api/trailer'],
      ['patch', '/api/yard-task/{id}'],
      ['post', '/api/camera/discover'],
      ['post', '/api/hardware/gate/{gateId}/actuate'],
    ] as const) {
      const op = paths[path]![method]!;
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op['x-ownership'], `${method} ${path}`).toBeUndefined();
      expect(op.responses['409']?.description ?? '', `${method} ${path}`).not.toMatch(/-owned/);
    }
  });

  it('every path of the ownership table is a registered write route', () => {
    const writes = new Set(t.routes.filter((r) => r.method !== 'get').map((r) => r.path));
    expect(ownedRoutePaths().filter((p) => !writes.has(p))).toEqual([]);
  });
});
