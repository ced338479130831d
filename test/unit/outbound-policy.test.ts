import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchImage } from '../../shared/cameras/http-image.js';
import { CameraError } from '../../shared/cameras/types.js';
import {
  addressRefusal,
  assertAddressAllowed,
  deviceAddressPolicy,
  OutboundRefusedError,
  PUSH_ENDPOINTS,
  requestGuard,
} from '../../shared/net/outbound-policy.js';
import { makeJpeg } from '../fixtures/jpeg.js';

const STRICT = deviceAddressPolicy({ allowLoopbackAndLinkLocal: false });
const LOCAL = deviceAddressPolicy({ allowLoopbackAndLinkLocal: true });

describe('address ranges', () => {
  it.each([
    // address, push endpoint allowed, camera allowed (default), camera allowed (setting on)
    ['8.8.8.8', true, true, true],
    ['2606:4700::1111', true, true, true],
    ['10.1.2.3', false, true, true],
    ['172.16.5.4', false, true, true],
    ['192.168.1.20', false, true, true],
    ['100.64.0.1', false, true, true],
    ['fd12:3456::1', false, true, true],
    ['127.0.0.1', false, false, true],
    ['127.8.9.10', false, false, true],
    ['::1', false, false, true],
    ['::ffff:127.0.0.1', false, false, true],
    ['::ffff:169.254.169.254', false, false, true],
    ['169.254.169.254', false, false, true],
    ['fe80::1', false, false, true],
    ['0.0.0.0', false, false, true],
    ['::', false, false, true],
    ['224.0.0.251', false, false, false],
    ['ff02::1', false, false, false],
    ['255.255.255.255', false, false, false],
  ])('%s: push %s, camera %s, camera with the setting %s', (address, push, camera, local) => {
    expect(addressRefusal(address, PUSH_ENDPOINTS) === null).toBe(push);
    expect(addressRefusal(address, STRICT) === null).toBe(camera);
    expect(addressRefusal(address, LOCAL) === null).toBe(local);
  });

  it('schemes: push endpoints https only, cameras http or https', () => {
    expect(() => requestGuard('http://8.8.8.8/x', PUSH_ENDPOINTS)).toThrow(/must use https, not http/);
    expect(() => requestGuard('https://8.8.8.8/x', PUSH_ENDPOINTS)).not.toThrow();
    expect(() => requestGuard('ftp://10.0.0.1/x', STRICT)).toThrow(OutboundRefusedError);
    expect(() => requestGuard('http://10.0.0.1/x', STRICT)).not.toThrow();
  });

  it('IP literals in any spelling the URL parser accepts are refused without a lookup', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:7f00:1]/', 'http://127.1/']) {
      expect(() => requestGuard(url, STRICT), url).toThrow(/loopback/);
    }
  });

  it('a name is judged by what it resolves to (localhost is loopback)', async () => {
    await expect(assertAddressAllowed('https://localhost/x', PUSH_ENDPOINTS)).rejects.toThrow(/loopback/);
    await expect(assertAddressAllowed('http://localhost/x', LOCAL)).resolves.toBeUndefined();
    // A name that does not resolve now is left to the check at connect time.
    await expect(
      assertAddressAllowed('https://no-such-host.invalid/x', PUSH_ENDPOINTS),
    ).resolves.toBeUndefined();
  });
});

describe('the check at connect time', () => {
  let server: Server;
  let port: number;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      const jpeg = makeJpeg();
      res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': jpeg.length }).end(jpeg);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a name that resolves to a refused address never gets a connection', async () => {
    const err = await fetchImage(`http://localhost:${port}/snap.jpg`, {
      timeoutMs: 2000,
      policy: STRICT,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CameraError);
    expect((err as CameraError).failure).toBe('address-refused');
    expect((err as CameraError).message).toMatch(/loopback.*network\.allowLoopbackAndLinkLocal/);
    expect(requests).toBe(0);
    const ok = await fetchImage(`http://localhost:${port}/snap.jpg`, { timeoutMs: 2000, policy: LOCAL });
    expect(ok.contentType).toBe('image/jpeg');
    expect(requests).toBe(1);
  });
});
