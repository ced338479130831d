import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  chooseEncoding,
  decodeBatchPayload,
  encodeBatch,
  isZlibStream,
  MAX_INFLATED_BYTES,
} from '../../../shared/sync/wire-encoding.js';

const batchJson = (rows: number) =>
  JSON.stringify({
    v: 1,
    site: 'site-a',
    stream: 's1',
    from: 1,
    to: rows,
    schemaV: 1,
    rows: Array.from({ length: rows }, (_, i) => ({
      seq: i + 1,
      entity: 'trailer',
      id: `trailer-${i}`,
      op: 'upsert',
      hlc: `1764000000000-${String(i % 10000).padStart(4, '0')}-edge`,
      data: { id: `trailer-${i}`, number: `TR-${i}`, loadStatus: 'loaded', yardId: 'yard-1' },
    })),
  });

describe('change batches on the wire', () => {
  it('deflate round trip: the same JSON back, far smaller, and told apart from JSON by its first byte', async () => {
    const json = batchJson(400);
    const wire = await encodeBatch(json, 'deflate');
    expect(Buffer.isBuffer(wire)).toBe(true);
    expect((wire as Buffer).length).toBeLessThan(json.length / 5);
    expect(isZlibStream(wire as Buffer)).toBe(true);
    expect(isZlibStream(Buffer.from(json))).toBe(false);
    expect(await decodeBatchPayload(wire as Buffer)).toEqual({ ok: true, text: json, encoding: 'deflate' });
    expect(await decodeBatchPayload(Buffer.from(json))).toEqual({ ok: true, text: json, encoding: 'json' });
  });

  it('plain JSON when the peer has not offered deflate, and for a batch over the byte limit (one large row)', async () => {
    const json = batchJson(3);
    expect(await encodeBatch(json, undefined)).toBe(json);
    const big = JSON.stringify({ rows: [{ data: { notes: 'x'.repeat(MAX_INFLATED_BYTES) } }] });
    expect(await encodeBatch(big, 'deflate')).toBe(big);
  });

  it('a compressed bomb is refused once it inflates past the batch byte limit, never expanded whole', async () => {
    // 64 MiB of one byte deflates to about 64 KiB.
    const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const decoded = await decodeBatchPayload(bomb);
    expect(decoded).toEqual({ ok: false, reason: `inflates past ${MAX_INFLATED_BYTES} bytes` });
  });

  it('a payload with a zlib header but a broken stream is refused with a reason', async () => {
    const wire = (await encodeBatch(batchJson(50), 'deflate')) as Buffer;
    const broken = Buffer.concat([wire.subarray(0, 20), Buffer.alloc(40, 0xff)]);
    const decoded = await decodeBatchPayload(broken);
    expect(decoded.ok).toBe(false);
    expect(decoded.ok === false && decoded.reason).toMatch(/^not a valid deflate stream/);
  });

  it('negotiation: deflate only when the setting allows it and the peer offered it', () => {
    expect(chooseEncoding(undefined, 'deflate')).toBeUndefined(); // not heard from the peer yet
    expect(chooseEncoding([], 'deflate')).toBeUndefined(); // an older peer
    expect(chooseEncoding(['zstd'], 'deflate')).toBeUndefined(); // a newer peer offering only what we lack
    expect(chooseEncoding(['zstd', 'deflate'], 'deflate')).toBe('deflate');
    expect(chooseEncoding(['deflate'], 'none')).toBeUndefined();
  });
});
