import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { digestResponse, parseChallenges } from '../../../shared/cameras/http-auth.js';
import { fetchImage } from '../../../shared/cameras/http-image.js';
import { CameraError } from '../../../shared/cameras/types.js';
import { deviceAddressPolicy } from '../../../shared/net/outbound-policy.js';
import { DigestGate, type DigestGateOptions } from '../../fixtures/fake-onvif-camera.js';
import { makeJpeg } from '../../fixtures/jpeg.js';

/** The fakes listen on loopback, which cameras may use only where the site allows it. */
const LOCAL = deviceAddressPolicy({ allowLoopbackAndLinkLocal: true });

interface TestServer {
  url: string;
  /** The Authorization header of every request, in order (null when absent). */
  authorizations: (string | null)[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const authorizations: (string | null)[] = [];
  const server: Server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? null);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const s: TestServer = {
    url: `http://127.0.0.1:${port}/onvif-http/snapshot?channel=1`,
    authorizations,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(s);
  return s;
}

function sendJpeg(res: ServerResponse, jpeg: Buffer): void {
  res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': jpeg.length }).end(jpeg);
}

/** A camera snapshot endpoint behind Digest; the gate decides, the server only relays. */
async function digestCamera(options: DigestGateOptions, jpeg = makeJpeg()) {
  const gate = new DigestGate(options);
  const verdicts: string[] = [];
  const server = await serve((req, res) => {
    const verdict = gate.verify(req);
    verdicts.push(verdict.ok ? 'ok' : verdict.reason);
    if (verdict.ok) return sendJpeg(res, jpeg);
    res
      .writeHead(401, { 'WWW-Authenticate': gate.challenge(verdict.reason === 'stale') })
      .end('Unauthorized');
  });
  return { ...server, verdicts, jpeg };
}

async function basicCamera(username: string, password: string, jpeg = makeJpeg()) {
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  return serve((req, res) => {
    if (req.headers.authorization === expected) return sendJpeg(res, jpeg);
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="camera"' }).end();
  });
}

async function failure(promise: Promise<unknown>): Promise<CameraError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CameraError);
  return err as CameraError;
}

const creds = { username: 'admin', password: 'Pa55+w/rd=' };

describe('digestResponse (RFC test vectors)', () => {
  it('RFC 2617 section 3.5: MD5, qop=auth', () => {
    expect(
      digestResponse({
        algorithm: 'MD5',
        username: 'Mufasa',
        password: 'Circle Of Life',
        realm: 'testrealm@host.com',
        nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
        method: 'GET',
        uri: '/dir/index.html',
        qop: 'auth',
        nc: '00000001',
        cnonce: '0a4f113b',
      }),
    ).toBe('6629fae49393a05397450978507c4ef1');
  });

  it('RFC 7616 section 3.9.1: MD5 and SHA-256 with base64 nonces', () => {
    const input = {
      username: 'Mufasa',
      password: 'Circle of Life',
      realm: 'http-auth@example.org',
      nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
      method: 'GET',
      uri: '/dir/index.html',
      qop: 'auth' as const,
      nc: '00000001',
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    };
    expect(digestResponse({ ...input, algorithm: 'MD5' })).toBe('8ca523f5e9506fed4657c9700eebdbec');
    expect(digestResponse({ ...input, algorithm: 'SHA-256' })).toBe(
      '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
    );
  });
});

describe('parseChallenges', () => {
  it('splits challenges Node joined into one value, keeping quoted commas and base64 nonces', () => {
    const joined =
      'Basic realm="cam, gate 1", Digest realm="cam, gate 1", qop="auth,auth-int", nonce="+/8=ab+/cd==", ' +
      'opaque="x/y=", algorithm=SHA-256, Digest realm="cam", nonce="zz==", algorithm=MD5, stale=TRUE';
    expect(parseChallenges(joined)).toEqual([
      { scheme: 'basic', params: { realm: 'cam, gate 1' } },
      {
        scheme: 'digest',
        params: {
          realm: 'cam, gate 1',
          qop: 'auth,auth-int',
          nonce: '+/8=ab+/cd==',
          opaque: 'x/y=',
          algorithm: 'SHA-256',
        },
      },
      { scheme: 'digest', params: { realm: 'cam', nonce: 'zz==', algorithm: 'MD5', stale: 'TRUE' } },
    ]);
  });
});

describe('fetchImage', () => {
  it('Digest MD5 with a base64 nonce: waits for the challenge, then answers it', async () => {
    const cam = await digestCamera({ realm: 'IP Camera', ...creds });
    const snap = await fetchImage(cam.url, {
      policy: LOCAL,
      auth: { type: 'digest', ...creds },
      timeoutMs: 5000,
    });
    expect(snap.bytes.equals(cam.jpeg)).toBe(true);
    expect(snap.contentType).toBe('image/jpeg');
    expect(snap.elapsedMs).toBeGreaterThan(0);
    expect(cam.verdicts).toEqual(['missing', 'ok']);
    expect(cam.authorizations[0]).toBeNull();
    expect(cam.authorizations[1]).toMatch(/^Digest .*algorithm=MD5.*qop=auth, nc=00000001, cnonce="/);
    expect(cam.authorizations[1]).toContain('uri="/onvif-http/snapshot?channel=1"');
    expect(cam.authorizations[1]).toMatch(/opaque="[^"]+"/);
    expect(cam.authorizations.join(' ')).not.toContain(creds.password);
  });

  it.each(['SHA-256', 'MD5-sess', 'SHA-256-sess'] as const)('Digest %s', async (algorithm) => {
    const cam = await digestCamera({ realm: 'cam', ...creds, algorithms: [algorithm] });
    const snap = await fetchImage(cam.url, {
      policy: LOCAL,
      auth: { type: 'digest', ...creds },
      timeoutMs: 5000,
    });
    expect(snap.bytes.equals(cam.jpeg)).toBe(true);
    expect(cam.verdicts).toEqual(['missing', 'ok']);
    expect(cam.authorizations[1]).toContain(`algorithm=${algorithm},`);
  });

  it('picks SHA-256 when the camera offers SHA-256 and MD5', async () => {
    const cam = await digestCamera({ realm: 'cam', ...creds, algorithms: ['MD5', 'SHA-256'] });
    await fetchImage(cam.url, { policy: LOCAL, auth: { type: 'digest', ...creds }, timeoutMs: 5000 });
    expect(cam.authorizations[1]).toContain('algorithm=SHA-256');
  });

  it('never sends Basic to a camera that offers Basic and Digest', async () => {
    const cam = await digestCamera({ realm: 'cam', ...creds, offerBasic: true });
    await fetchImage(cam.url, { policy: LOCAL, auth: { type: 'digest', ...creds }, timeoutMs: 5000 });
    expect(cam.verdicts).toEqual(['missing', 'ok']);
    expect(cam.authorizations.some((a) => a?.startsWith('Basic'))).toBe(false);
  });

  it('answers a stale=true re-challenge with the new nonce', async () => {
    const cam = await digestCamera({ realm: 'cam', ...creds, staleOnce: true });
    const snap = await fetchImage(cam.url, {
      policy: LOCAL,
      auth: { type: 'digest', ...creds },
      timeoutMs: 5000,
    });
    expect(snap.bytes.equals(cam.jpeg)).toBe(true);
    expect(cam.verdicts).toEqual(['missing', 'stale', 'ok']);
    const nonceOf = (a: string | null | undefined) => /nonce="([^"]+)"/.exec(a ?? '')?.[1];
    expect(nonceOf(cam.authorizations[2])).not.toBe(nonceOf(cam.authorizations[1]));
  });

  it('wrong password with Digest: unauthorized, says what to check, no secret in the message', async () => {
    const cam = await digestCamera({ realm: 'cam', ...creds });
    const err = await failure(
      fetchImage(cam.url, {
        policy: LOCAL,
        auth: { type: 'digest', username: 'admin', password: 'nope' },
        timeoutMs: 5000,
      }),
    );
    expect(err.failure).toBe('unauthorized');
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/username and password/);
    expect(err.message).not.toContain('nope');
    expect(cam.verdicts).toEqual(['missing', 'wrong']);
  });

  it('Basic auth type sends Basic on the first request', async () => {
    const cam = await basicCamera('admin', 'secret');
    const snap = await fetchImage(cam.url, {
      policy: LOCAL,
      auth: { type: 'basic', username: 'admin', password: 'secret' },
      timeoutMs: 5000,
    });
    expect(snap.bytes[0]).toBe(0xff);
    expect(cam.authorizations).toEqual([`Basic ${Buffer.from('admin:secret').toString('base64')}`]);
  });

  it('Basic with a wrong password: unauthorized after one request', async () => {
    const cam = await basicCamera('admin', 'secret');
    const err = await failure(
      fetchImage(cam.url, {
        policy: LOCAL,
        auth: { type: 'basic', username: 'admin', password: 'guess' },
        timeoutMs: 5000,
      }),
    );
    expect(err.failure).toBe('unauthorized');
    expect(err.message).not.toContain('guess');
    expect(cam.authorizations).toHaveLength(1);
  });

  it('Basic auth type against a Digest camera: unauthorized, telling the operator to use digest', async () => {
    const cam = await digestCamera({ realm: 'cam', ...creds });
    const err = await failure(
      fetchImage(cam.url, { policy: LOCAL, auth: { type: 'basic', ...creds }, timeoutMs: 5000 }),
    );
    expect(err.failure).toBe('unauthorized');
    expect(err.message).toMatch(/asks for Digest/);
    expect(cam.authorizations).toHaveLength(1);
  });

  it('digest auth type never falls back to Basic: a server asking only for Basic gets no password', async () => {
    const cam = await basicCamera('admin', 'secret');
    const err = await failure(
      fetchImage(cam.url, {
        policy: LOCAL,
        auth: { type: 'digest', username: 'admin', password: 'secret' },
        timeoutMs: 5000,
      }),
    );
    expect(err.failure).toBe('unauthorized');
    expect(err.message).toMatch(/asks for HTTP Basic.*set the auth type to basic/);
    expect(cam.authorizations).toEqual([null]);
  });

  it('bearer token', async () => {
    const jpeg = makeJpeg({ seed: 3 });
    const cam = await serve((req, res) =>
      req.headers.authorization === 'Bearer tok-123' ? sendJpeg(res, jpeg) : res.writeHead(401).end(),
    );
    const snap = await fetchImage(cam.url, {
      policy: LOCAL,
      auth: { type: 'bearer', token: 'tok-123' },
      timeoutMs: 5000,
    });
    expect(snap.bytes.equals(jpeg)).toBe(true);
    const err = await failure(
      fetchImage(cam.url, { policy: LOCAL, auth: { type: 'bearer', token: 'tok-bad' }, timeoutMs: 5000 }),
    );
    expect(err.failure).toBe('unauthorized');
    expect(err.message).not.toContain('tok-bad');
  });

  it('403 for a user without snapshot rights: unauthorized, pointing at the permissions', async () => {
    const cam = await serve((_req, res) => res.writeHead(403).end());
    const err = await failure(
      fetchImage(cam.url, { policy: LOCAL, auth: { type: 'basic', ...creds }, timeoutMs: 5000 }),
    );
    expect(err.failure).toBe('unauthorized');
    expect(err.status).toBe(403);
    expect(err.message).toMatch(/permission|may fetch/);
  });

  it('no credentials against a protected camera: unauthorized', async () => {
    const cam = await digestCamera({ realm: 'cam', ...creds });
    const err = await failure(fetchImage(cam.url, { policy: LOCAL, timeoutMs: 5000 }));
    expect(err.failure).toBe('unauthorized');
    expect(err.message).toMatch(/credentials/);
  });

  it('credentials in the URL are answered as Digest and not sent in the URL', async () => {
    const cam = await digestCamera({ realm: 'cam', ...creds });
    const withCreds = cam.url.replace('http://', `http://admin:${encodeURIComponent(creds.password)}@`);
    const snap = await fetchImage(withCreds, { policy: LOCAL, timeoutMs: 5000 });
    expect(snap.bytes.equals(cam.jpeg)).toBe(true);
    expect(cam.verdicts).toEqual(['missing', 'ok']);
  });

  it('a page that is not an image is a bad-response', async () => {
    const cam = await serve((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>login</html>'),
    );
    const err = await failure(fetchImage(cam.url, { policy: LOCAL, timeoutMs: 5000 }));
    expect(err.failure).toBe('bad-response');
    expect(err.message).toMatch(/text\/html/);
  });

  it('image/jpeg that is not a JPEG is a bad-response', async () => {
    const cam = await serve((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end('GIF89a....'),
    );
    expect((await failure(fetchImage(cam.url, { policy: LOCAL, timeoutMs: 5000 }))).failure).toBe(
      'bad-response',
    );
  });

  it('JPEG bytes with no content type are accepted as image/jpeg', async () => {
    const jpeg = makeJpeg();
    const cam = await serve((_req, res) => {
      res.removeHeader('Content-Type');
      res.writeHead(200).end(jpeg);
    });
    const snap = await fetchImage(cam.url, { policy: LOCAL, timeoutMs: 5000 });
    expect(snap.contentType).toBe('image/jpeg');
    expect(snap.bytes.equals(jpeg)).toBe(true);
  });

  it('an HTTP error is a bad-response with the status; the query (which may hold a password) is not shown', async () => {
    const cam = await serve((_req, res) => res.writeHead(500).end('boom'));
    const err = await failure(fetchImage(`${cam.url}&pwd=hunter2`, { policy: LOCAL, timeoutMs: 5000 }));
    expect(err.failure).toBe('bad-response');
    expect(err.status).toBe(500);
    expect(err.message).toContain('/onvif-http/snapshot');
    expect(err.message).not.toContain('hunter2');
  });

  it('an answer larger than maxBytes is a bad-response', async () => {
    const big = Buffer.concat([makeJpeg(), Buffer.alloc(50_000, 0x11)]);
    const cam = await serve((_req, res) => sendJpeg(res, big));
    const err = await failure(fetchImage(cam.url, { policy: LOCAL, timeoutMs: 5000, maxBytes: 20_000 }));
    expect(err.failure).toBe('bad-response');
    expect(err.message).toMatch(/more than 20000 bytes/);
    const ok = await fetchImage(cam.url, { policy: LOCAL, timeoutMs: 5000, maxBytes: 100_000 });
    expect(ok.bytes.length).toBe(big.length);
  });

  it('a server that accepts but never answers: timeout within timeoutMs', async () => {
    const cam = await serve(() => {
      /* never answers */
    });
    const started = Date.now();
    const err = await failure(fetchImage(cam.url, { policy: LOCAL, timeoutMs: 300 }));
    expect(err.failure).toBe('timeout');
    expect(err.message).toMatch(/300 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a body that stalls halfway: timeout', async () => {
    const jpeg = makeJpeg();
    const cam = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': jpeg.length + 100 });
      res.write(jpeg);
    });
    expect((await failure(fetchImage(cam.url, { policy: LOCAL, timeoutMs: 300 }))).failure).toBe('timeout');
  });

  it('nothing listening: unreachable', async () => {
    const cam = await serve(() => {});
    await cam.close();
    const err = await failure(fetchImage(cam.url, { policy: LOCAL, timeoutMs: 5000 }));
    expect(err.failure).toBe('unreachable');
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('a malformed URL is refused before any request', async () => {
    expect((await failure(fetchImage('not a url', { policy: LOCAL, timeoutMs: 1000 }))).failure).toBe(
      'unreachable',
    );
    expect(
      (await failure(fetchImage('ftp://camera/snap.jpg', { policy: LOCAL, timeoutMs: 1000 }))).failure,
    ).toBe('unreachable');
  });

  it('concurrent Digest fetches from cameras with different realms and passwords share no state', async () => {
    const cams = await Promise.all(
      [0, 1, 2].map((i) =>
        digestCamera(
          {
            realm: `cam-${i}`,
            username: `user${i}`,
            password: `pass+/=${i}`,
            algorithms: [i === 1 ? 'SHA-256' : 'MD5'],
          },
          makeJpeg({ seed: i, comment: `camera ${i}` }),
        ),
      ),
    );
    const fetches = cams.flatMap((cam, i) =>
      Array.from({ length: 8 }, () =>
        fetchImage(cam.url, {
          policy: LOCAL,
          auth: { type: 'digest', username: `user${i}`, password: `pass+/=${i}` },
          timeoutMs: 10_000,
        }).then((snap) => snap.bytes.equals(cam.jpeg)),
      ),
    );
    expect(await Promise.all(fetches)).toEqual(new Array(24).fill(true));
    for (const cam of cams) expect(cam.verdicts.filter((v) => v === 'ok')).toHaveLength(8);
  });
});
