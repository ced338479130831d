import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedBroker, startEmbeddedBroker } from '../../../cloud/broker.js';
import { CommandResult, decode, PROTOCOL_V } from '../../../shared/sync/protocol.js';
import { rows } from '../../helpers/http.js';
import { type Cloud, copyRow, createGate, type Edge, startCloud, startEdge } from './commands-fixture.js';

/**
 * A gate rate-limited at the edge, actuated from the cloud: the edge's 429 reaches the cloud's
 * client with the edge's wait, both as the problem's `retryAfterSec` and as the Retry-After header,
 * as the edge answers its own clients. Problems without a wait carry no Retry-After.
 */

let broker: EmbeddedBroker;
let cloud: Cloud;
let edge: Edge;
let gateId: string;

beforeAll(async () => {
  broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
  cloud = await startCloud(broker.url);
  edge = await startEdge(broker.url, cloud, 'site-limit');
  gateId = await createGate(edge, cloud, 'Limited in');
  const limit = await edge.admin.put('/api/settings', { settings: { 'gate.maxActuationsPerMinute': 1 } });
  expect(limit.status, limit.text).toBe(200);
});

afterAll(async () => {
  await edge?.app.close();
  await cloud?.app.close();
  await broker?.stop();
});

const retryAfterOf = (res: { headers: Headers }) => res.headers.get('retry-after');

describe('429 rate-limited through the cloud', () => {
  it("answers the edge's 429 with Retry-After and retryAfterSec", async () => {
    const path = `/api/hardware/gate/${gateId}/actuate`;
    const first = await cloud.admin.post(path, { reason: 'first truck' });
    expect(first.status, first.text).toBe(200);

    const limited = await cloud.admin.post(path, { reason: 'second truck' });
    expect(limited.status, limited.text).toBe(429);
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect(limited.body).toMatchObject({ status: 429, code: 'rate-limited' });
    expect(limited.body.detail).toContain('Limited in');
    const sec = limited.body.retryAfterSec;
    expect(Number.isInteger(sec)).toBe(true);
    expect(sec).toBeGreaterThanOrEqual(1);
    expect(sec).toBeLessThanOrEqual(60);
    expect(retryAfterOf(limited)).toBe(String(sec));

    // The edge refused and audited it; its own clients get the same kind of answer.
    expect(
      rows(
        edge.app.db,
        'SELECT requested_via, result FROM gate_actuation WHERE gate_id = ? ORDER BY at, id',
        gateId,
      ),
    ).toEqual([
      { requested_via: 'cloud', result: 'ok' },
      { requested_via: 'cloud', result: 'refused' },
    ]);
    const local = await edge.admin.post(path, {});
    expect(local.status).toBe(429);
    expect(retryAfterOf(local)).toBe(String(local.body.retryAfterSec));
  });

  it('a problem without a wait (409 no-relay) has no Retry-After', async () => {
    const manual = await edge.admin.post(`/api/yard/${edge.yardId}/gate`, {
      name: 'Manual',
      direction: 'in',
    });
    expect(manual.status, manual.text).toBe(201);
    copyRow(edge.app, cloud.app, 'gate', manual.body.id);
    const res = await cloud.admin.post(`/api/hardware/gate/${manual.body.id}/actuate`, {});
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('no-relay');
    expect(res.body.retryAfterSec).toBeUndefined();
    expect(retryAfterOf(res)).toBeNull();
  });

  it('the wire format: retryAfterSec is optional, whole and not negative', () => {
    const base = { v: PROTOCOL_V, id: 'c1', ok: false };
    const error = { status: 429, code: 'rate-limited', detail: 'wait' };
    expect(
      decode(CommandResult, JSON.stringify({ ...base, error: { ...error, retryAfterSec: 7 } }))?.error,
    ).toEqual({ ...error, retryAfterSec: 7 });
    // An edge that does not send it yet: still a valid result, without a wait.
    expect(decode(CommandResult, JSON.stringify({ ...base, error }))?.error).toEqual(error);
    expect(
      decode(CommandResult, JSON.stringify({ ...base, error: { ...error, retryAfterSec: -1 } })),
    ).toBeUndefined();
    expect(
      decode(CommandResult, JSON.stringify({ ...base, error: { ...error, retryAfterSec: 1.5 } })),
    ).toBeUndefined();
  });

  it('the OpenAPI document names the Retry-After header of a 429', () => {
    const doc = cloud.app.openapi() as any;
    const tooMany = doc.paths['/api/hardware/gate/{gateId}/actuate'].post.responses['429'];
    expect(tooMany.headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 0 });
  });
});
