import { once } from 'node:events';
import http, { type Server } from 'node:http';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteRegistrar } from '../../../shared/http/routes.js';
import { z } from '../../../shared/http/zod.js';
import { Client } from '../../helpers/http.js';

/**
 * Which route answers a path two routes match does not depend on the order they were registered
 * in (docs/api.md "OpenAPI and the registrar"): a static segment beats a parameter, and a parameter beats a
 * trailing {fullPath}, at the first segment where the two differ. Registered here in the wrong
 * order on purpose, over real HTTP.
 */
let server: Server;
let client: Client;
let registrar: RouteRegistrar;

beforeAll(async () => {
  const app = express();
  const router = express.Router();
  registrar = new RouteRegistrar(router, new OpenAPIRegistry(), {
    validateResponses: true,
    jsonLimit: '1kb',
  });
  const route = (path: string, params?: z.ZodObject) =>
    registrar.add({
      method: 'get',
      path,
      tag: 'Test',
      summary: path,
      access: 'public',
      ...(params ? { params } : {}),
      handler: () => ({ route: path }),
    });
  const id = z.object({ id: z.string() });
  route('/{fullPath}', z.object({ fullPath: z.array(z.string()) }));
  route('/api/x/{id}', id);
  route('/api/x/summary');
  route('/api/x/{id}/items', id);
  route('/api/x/export/items');
  route('/api/x/{id}/{part}', z.object({ id: z.string(), part: z.string() }));
  app.use(router);
  app.use((_req, res) => {
    res.status(404).json({ route: null });
  });
  server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as { port: number };
  client = new Client(`http://127.0.0.1:${address.port}`);
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const answerOf = async (path: string) => (await client.request('GET', path)).body.route;

describe('route registration order', () => {
  it('a static segment beats a parameter registered before it', async () => {
    expect(await answerOf('/api/x/summary')).toBe('/api/x/summary');
    expect(await answerOf('/api/x/export/items')).toBe('/api/x/export/items');
    expect(await answerOf('/api/x/summary/items')).toBe('/api/x/{id}/items');
  });

  it('a parameter still takes what no static route names', async () => {
    expect(await answerOf('/api/x/42')).toBe('/api/x/{id}');
    expect(await answerOf('/api/x/42/items')).toBe('/api/x/{id}/items');
    expect(await answerOf('/api/x/42/other')).toBe('/api/x/{id}/{part}');
  });

  it('a trailing {fullPath} takes only what no other route matches', async () => {
    expect(await answerOf('/api/x/1/2/3')).toBe('/{fullPath}');
    expect(await answerOf('/gate/check-out')).toBe('/{fullPath}');
  });

  it('a route added after the first request takes part too', async () => {
    expect(await answerOf('/api/x/late')).toBe('/api/x/{id}');
    registrar.add({
      method: 'get',
      path: '/api/x/late',
      tag: 'Test',
      summary: 'late',
      access: 'public',
      handler: () => ({ route: 'late' }),
    });
    expect(await answerOf('/api/x/late')).toBe('late');
  });

  it('the route table keeps the order of registration (the OpenAPI document follows it)', () => {
    expect(registrar.table.map((r) => r.path).slice(0, 3)).toEqual([
      '/{fullPath}',
      '/api/x/{id}',
      '/api/x/summary',
    ]);
  });
});
