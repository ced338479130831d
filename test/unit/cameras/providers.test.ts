import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyTokenConfig, apiKeyTokenKind } from '../../../shared/cameras/providers/api-key-token.js';
import { FrameUrlConfig, frameUrlKind } from '../../../shared/cameras/providers/frame-url.js';
import { HttpSnapshotConfig, httpSnapshotKind } from '../../../shared/cameras/providers/http-snapshot.js';
import { CAMERA_PROVIDER_KINDS, providerKind } from '../../../shared/cameras/providers/index.js';
import { CameraError, type CameraFailure, type CameraProvider } from '../../../shared/cameras/types.js';
import { z } from '../../../shared/http/zod.js';
import { deviceAddressPolicy } from '../../../shared/net/outbound-policy.js';
import {
  FakeApiKeyTokenService,
  FakeFrameUrlService,
  type FakeProviderCamera,
  FakeSnapshotCameras,
} from '../../fixtures/fake-camera-provider.js';

/** The fakes listen on loopback, which cameras may use only where the site allows it. */
const LOCAL = deviceAddressPolicy({ allowLoopbackAndLinkLocal: true });

const CAMERAS: FakeProviderCamera[] = [
  { id: 'cam-a', name: 'Gate 1 in', site: 'North yard' },
  { id: 'cam-b', name: 'Gate 1 out', site: 'North yard', online: false },
  { id: 'cam-c', name: 'Gate 2 in', site: 'South yard' },
  { id: 'cam-d', name: 'Scale house' },
  { id: 'cam-e', name: 'Trailer row 7', site: 'South yard' },
];

/** Generous: only hang tests wait for it, and they assert the failure kind, not the time. */
const TIMEOUT = { timeoutMs: 5_000 };
const SHORT = { timeoutMs: 300 };
const MINUTE = 60_000;

let clock = Date.UTC(2026, 2, 2, 8, 0, 0);
const now = () => clock;
beforeEach(() => {
  clock = Date.UTC(2026, 2, 2, 8, 0, 0);
});

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function started<T extends { start(): Promise<T>; stop(): Promise<void> }>(fake: T): Promise<T> {
  await fake.start();
  stops.push(() => fake.stop());
  return fake;
}

/** A port nothing listens on: start a fake and stop it. */
async function deadBaseUrl(): Promise<string> {
  const fake = new FakeSnapshotCameras({ type: 'none' }, ['x']);
  await fake.start();
  const base = new URL(fake.urlOf('x')).origin;
  await fake.stop();
  return base;
}

/**
 * Awaits a rejection and checks it is a CameraError of `failure` whose message contains none of
 * `secrets` (keys, passwords, every token the fake issued, signed URL parts).
 */
async function expectFailure(
  promise: Promise<unknown>,
  failure: CameraFailure,
  secrets: readonly string[],
): Promise<CameraError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a '${failure}' CameraError, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CameraError);
  const cameraError = error as CameraError;
  expect({ failure: cameraError.failure, message: cameraError.message }).toMatchObject({ failure });
  for (const secret of secrets) expect(cameraError.message).not.toContain(secret);
  return cameraError;
}

describe('provider kinds', () => {
  it('lists the three kinds and finds each by name', () => {
    expect(CAMERA_PROVIDER_KINDS.map((k) => k.kind)).toEqual(['http-snapshot', 'api-key-token', 'frame-url']);
    expect(providerKind('api-key-token')).toBe(apiKeyTokenKind);
    expect(providerKind('frame-url')).toBe(frameUrlKind);
    expect(providerKind('http-snapshot')).toBe(httpSnapshotKind);
    expect(providerKind('verkada')).toBeUndefined();
    expect(providerKind('')).toBeUndefined();
  });

  it('serves each config schema as JSON Schema with a description on every field, secrets as passwords', () => {
    for (const kind of CAMERA_PROVIDER_KINDS) {
      const schema = z.toJSONSchema(kind.configSchema, { io: 'input', unrepresentable: 'any' });
      const undescribed: string[] = [];
      const secretPaths: string[] = [];
      const walk = (node: unknown, path: string[]) => {
        if (!node || typeof node !== 'object') return;
        const n = node as Record<string, unknown>;
        if (n.format === 'password') secretPaths.push(path.join('.'));
        for (const [name, child] of Object.entries((n.properties ?? {}) as Record<string, unknown>)) {
          const c = child as Record<string, unknown>;
          if (name !== 'type' && typeof c.description !== 'string')
            undescribed.push([...path, name].join('.'));
          walk(child, [...path, name]);
        }
        for (const option of (n.oneOf ?? n.anyOf ?? []) as unknown[]) walk(option, path);
        if (n.items) walk(n.items, path);
      };
      walk(schema, []);
      expect({ kind: kind.kind, undescribed }).toEqual({ kind: kind.kind, undescribed: [] });
      expect(new Set(secretPaths)).toEqual(new Set(kind.secretFields));
      expect(kind.title.length).toBeGreaterThan(5);
      expect(kind.description.length).toBeGreaterThan(40);
    }
  });
});

// ---- http-snapshot --------------------------------------------------------------------------------

describe('http-snapshot', () => {
  const PASSWORD = 'yard-Cam-pass-42';
  const TOKEN = 'static-bearer-token-0123456789';

  function config(auth: HttpSnapshotConfig['auth'], fake: FakeSnapshotCameras): HttpSnapshotConfig {
    return HttpSnapshotConfig.parse({
      auth,
      cameras: [
        { id: 'gate-1', name: 'Gate 1', snapshotUrl: fake.urlOf('gate-1'), location: 'North gate' },
        { id: 'gate-2', name: 'Gate 2', snapshotUrl: fake.urlOf('gate-2') },
      ],
    });
  }

  it('config schema accepts each auth type and refuses broken configs', () => {
    const camera = { id: 'gate-1', name: 'Gate 1', snapshotUrl: 'http://192.168.1.20/cgi-bin/snapshot.cgi' };
    const ok = (auth: unknown) => HttpSnapshotConfig.safeParse({ auth, cameras: [camera] }).success;
    expect(ok({ type: 'none' })).toBe(true);
    expect(ok({ type: 'basic', username: 'admin', password: PASSWORD })).toBe(true);
    expect(ok({ type: 'digest', username: 'admin', password: PASSWORD })).toBe(true);
    expect(ok({ type: 'bearer', token: TOKEN })).toBe(true);
    expect(ok({ type: 'basic', username: 'admin' })).toBe(false);
    expect(ok({ type: 'digest', username: '', password: PASSWORD })).toBe(false);
    expect(ok({ type: 'ntlm', username: 'admin', password: PASSWORD })).toBe(false);

    const refused = (cameras: unknown[]) => HttpSnapshotConfig.safeParse({ auth: { type: 'none' }, cameras });
    expect(refused([]).success).toBe(false);
    expect(refused([camera, { ...camera, name: 'Again' }]).error?.issues[0]?.message).toMatch(/used twice/);
    expect(refused([{ ...camera, snapshotUrl: 'http://admin:secret@192.168.1.20/snap.jpg' }]).success).toBe(
      false,
    );
    expect(refused([{ ...camera, snapshotUrl: 'ftp://192.168.1.20/snap.jpg' }]).success).toBe(false);
    expect(refused([{ ...camera, id: 'has space' }]).success).toBe(false);
    expect(refused([{ ...camera, extra: 1 }]).success).toBe(false);
  });

  it('lists the configured cameras', async () => {
    const fake = await started(new FakeSnapshotCameras({ type: 'none' }, ['gate-1', 'gate-2']));
    const provider = httpSnapshotKind.connect(config({ type: 'none' }, fake), { now, policy: LOCAL });
    expect(await provider.listCameras(TIMEOUT)).toEqual([
      { id: 'gate-1', name: 'Gate 1', location: 'North gate', online: null },
      { id: 'gate-2', name: 'Gate 2', location: null, online: null },
    ]);
    expect(fake.requests).toEqual([]);
  });

  const authCases = [
    { type: 'none' },
    { type: 'basic', username: 'admin', password: PASSWORD },
    { type: 'digest', username: 'admin', password: PASSWORD },
    { type: 'bearer', token: TOKEN },
  ] as const;

  for (const auth of authCases) {
    it(`fetches the bytes the camera served (${auth.type})`, async () => {
      const fake = await started(new FakeSnapshotCameras(auth, ['gate-1', 'gate-2']));
      const provider = httpSnapshotKind.connect(config(auth, fake), { now, policy: LOCAL });
      const one = await provider.snapshot('gate-1', TIMEOUT);
      const two = await provider.snapshot('gate-2', TIMEOUT);
      expect(one.bytes.equals(fake.last('gate-1')!)).toBe(true);
      expect(two.bytes.equals(fake.last('gate-2')!)).toBe(true);
      expect(one.bytes.equals(two.bytes)).toBe(false);
      expect(one.contentType).toBe('image/jpeg');
    });
  }

  for (const auth of authCases.filter((a) => a.type !== 'none')) {
    it(`wrong ${auth.type} credentials are 'unauthorized', and the message has no secret`, async () => {
      const fake = await started(new FakeSnapshotCameras(auth, ['gate-1', 'gate-2']));
      const wrong =
        auth.type === 'bearer'
          ? { type: 'bearer' as const, token: 'wrong-bearer-token-000' }
          : { ...auth, password: 'wrong-password-000' };
      const provider = httpSnapshotKind.connect(config(wrong, fake), { now, policy: LOCAL });
      const error = await expectFailure(provider.snapshot('gate-1', TIMEOUT), 'unauthorized', [
        PASSWORD,
        TOKEN,
        'wrong-bearer-token-000',
        'wrong-password-000',
      ]);
      expect(error.message).toMatch(
        /^http-snapshot: fetching the snapshot of camera gate-1 from http:\/\/127\.0\.0\.1/,
      );
      expect(error.message).toMatch(/(credentials|token)( was)? refused|refused the credentials/);
      expect(error.message).toMatch(/check/i);
      expect(error.status).toBe(401);
    });
  }

  it("an unknown camera id is 'not-found' without asking any camera", async () => {
    const fake = await started(new FakeSnapshotCameras({ type: 'none' }, ['gate-1', 'gate-2']));
    const provider = httpSnapshotKind.connect(config({ type: 'none' }, fake), { now, policy: LOCAL });
    const error = await expectFailure(provider.snapshot('gate-9', TIMEOUT), 'not-found', []);
    expect(error.message).toMatch(/gate-9/);
    expect(fake.requests).toEqual([]);
  });

  it("a camera that is down is 'unreachable'; one that hangs is 'timeout'", async () => {
    const fake = await started(new FakeSnapshotCameras({ type: 'none' }, ['gate-1', 'gate-2']));
    const dead = await deadBaseUrl();
    const cfg = config({ type: 'none' }, fake);
    cfg.cameras[1]!.snapshotUrl = `${dead}/cgi-bin/snapshot.cgi?channel=2`;
    const provider = httpSnapshotKind.connect(cfg, { now, policy: LOCAL });
    const down = await expectFailure(provider.snapshot('gate-2', TIMEOUT), 'unreachable', []);
    expect(down.message).toMatch(/check/i);

    fake.fail('hang');
    await expectFailure(provider.snapshot('gate-1', SHORT), 'timeout', []);

    fake.fail('reset');
    await expectFailure(provider.snapshot('gate-1', TIMEOUT), 'unreachable', []);
  });

  it('does not leak a password or token from the query string of a snapshot URL', async () => {
    const fake = await started(new FakeSnapshotCameras({ type: 'none' }, ['gate-1']));
    const cfg = config({ type: 'none' }, fake);
    cfg.cameras[0]!.snapshotUrl = `${fake.urlOf('gate-1')}&pwd=query-secret-123`;
    fake.fail({ status: 500 });
    const provider = httpSnapshotKind.connect(cfg, { now, policy: LOCAL });
    await expectFailure(provider.snapshot('gate-1', TIMEOUT), 'bad-response', ['query-secret-123']);
  });
});

// ---- api-key-token --------------------------------------------------------------------------------

describe('api-key-token', () => {
  const API_KEY = 'vkd_api_7f3c9a1e5b2d4c6f8a0b';
  let fake: FakeApiKeyTokenService;
  let provider: CameraProvider;
  const secrets = () => [API_KEY, ...fake.issuedTokens];

  function connect(overrides: Partial<ApiKeyTokenConfig> = {}): CameraProvider {
    return apiKeyTokenKind.connect(
      ApiKeyTokenConfig.parse({ baseUrl: fake.baseUrl, apiKey: API_KEY, pageSize: 2, ...overrides }),
      { now, policy: LOCAL },
    );
  }

  beforeEach(async () => {
    fake = await started(new FakeApiKeyTokenService({ apiKey: API_KEY, cameras: CAMERAS, now }));
    provider = connect();
  });

  it('config schema fills defaults and refuses broken configs', () => {
    expect(ApiKeyTokenConfig.parse({ baseUrl: 'https://api.verkada.com', apiKey: API_KEY })).toEqual({
      baseUrl: 'https://api.verkada.com',
      apiKey: API_KEY,
      resolution: 'low-res',
      pageSize: 100,
    });
    const refused = (c: unknown) => ApiKeyTokenConfig.safeParse(c).success;
    expect(refused({ baseUrl: 'https://api.verkada.com' })).toBe(false);
    expect(refused({ baseUrl: 'api.verkada.com', apiKey: API_KEY })).toBe(false);
    expect(refused({ baseUrl: 'https://api.verkada.com', apiKey: 'abc' })).toBe(false);
    expect(refused({ baseUrl: 'https://api.verkada.com', apiKey: API_KEY, pageSize: 500 })).toBe(false);
    expect(refused({ baseUrl: 'https://api.verkada.com', apiKey: API_KEY, resolution: '4k' })).toBe(false);
    expect(refused({ baseUrl: 'https://api.verkada.com', apiKey: API_KEY, orgId: 'x' })).toBe(false);
  });

  it('lists every camera across pages', async () => {
    const cameras = await provider.listCameras(TIMEOUT);
    expect(cameras).toEqual([
      { id: 'cam-a', name: 'Gate 1 in', location: 'North yard', online: true },
      { id: 'cam-b', name: 'Gate 1 out', location: 'North yard', online: false },
      { id: 'cam-c', name: 'Gate 2 in', location: 'South yard', online: true },
      { id: 'cam-d', name: 'Scale house', location: null, online: true },
      { id: 'cam-e', name: 'Trailer row 7', location: 'South yard', online: true },
    ]);
    expect(fake.count('devices')).toBe(3);
    expect(fake.requests.filter((r) => r.route === 'devices').map((r) => r.url)).toEqual([
      '/cameras/v1/devices?page_size=2',
      expect.stringMatching(/^\/cameras\/v1\/devices\?page_size=2&page_token=.+/),
      expect.stringMatching(/^\/cameras\/v1\/devices\?page_size=2&page_token=.+/),
    ]);
  });

  it('returns the bytes the provider served, at the configured resolution', async () => {
    const a = await provider.snapshot('cam-a', TIMEOUT);
    expect(a.bytes.equals(fake.last('cam-a')!)).toBe(true);
    const hiRes = connect({ resolution: 'hi-res' });
    const c = await hiRes.snapshot('cam-c', TIMEOUT);
    expect(c.bytes.equals(fake.last('cam-c')!)).toBe(true);
    expect(fake.resolutions).toEqual(['low-res', 'hi-res']);
  });

  it('fetches the token once for many calls, and again only once it is about to expire', async () => {
    await provider.listCameras(TIMEOUT);
    for (const id of ['cam-a', 'cam-b', 'cam-c', 'cam-a']) await provider.snapshot(id, TIMEOUT);
    expect(fake.tokenRequests).toBe(1);

    clock += 28 * MINUTE; // the vendor's tokens live 30 minutes
    await provider.snapshot('cam-a', TIMEOUT);
    expect(fake.tokenRequests).toBe(1);

    clock += 1.5 * MINUTE; // within a minute of expiry: refreshed before it is refused
    await provider.snapshot('cam-a', TIMEOUT);
    expect(fake.tokenRequests).toBe(2);
    expect(fake.requests.filter((r) => r.status === 401)).toEqual([]);
  });

  it('a 401 on a data call refreshes the token once and retries', async () => {
    await provider.snapshot('cam-a', TIMEOUT);
    fake.revokeAllTokens();
    const again = await provider.snapshot('cam-b', TIMEOUT);
    expect(again.bytes.equals(fake.last('cam-b')!)).toBe(true);
    expect(fake.tokenRequests).toBe(2);

    fake.revokeAllTokens();
    expect(await provider.listCameras(TIMEOUT)).toHaveLength(5);
    expect(fake.tokenRequests).toBe(3);
  });

  it("a data call still refused after the refresh is 'unauthorized', not retried forever", async () => {
    fake.fail('thumbnail', { status: 401, body: { id: '0e2d', message: 'Token expired', data: null } }, 5);
    const error = await expectFailure(provider.snapshot('cam-a', TIMEOUT), 'unauthorized', secrets());
    expect(fake.tokenRequests).toBe(2);
    expect(fake.count('thumbnail')).toBe(2);
    expect(error.message).toMatch(/latest thumbnail of camera "cam-a"/);
    expect(error.message).toMatch(/camera read permission/);
  });

  it('concurrent snapshots share one token request', async () => {
    const ids = ['cam-a', 'cam-b', 'cam-c', 'cam-d', 'cam-e'];
    const shots = await Promise.all([...ids, ...ids].map((id) => provider.snapshot(id, TIMEOUT)));
    expect(fake.tokenRequests).toBe(1);
    expect(shots.map((s) => s.bytes.subarray(0, 3).toString('hex'))).toEqual(new Array(10).fill('ffd8ff'));

    fake.revokeAllTokens();
    await Promise.all(ids.map((id) => provider.snapshot(id, TIMEOUT)));
    expect(fake.tokenRequests).toBe(2);
  });

  it("a bad API key is 'unauthorized' and says to check the key, without quoting it", async () => {
    const bad = connect({ apiKey: 'vkd_api_wrong_key_000000' });
    const error = await expectFailure(bad.listCameras(TIMEOUT), 'unauthorized', [
      ...secrets(),
      'vkd_api_wrong_key_000000',
    ]);
    expect(error.message).toMatch(
      /^api-key-token: getting an API token from http:\/\/127\.0\.0\.1:\d+\/token failed/,
    );
    expect(error.message).toMatch(/Invalid API key/);
    expect(error.message).toMatch(/Check the API key/);
    expect(error.status).toBe(401);
  });

  it("an unknown camera is 'not-found'", async () => {
    const error = await expectFailure(provider.snapshot('cam-zz', TIMEOUT), 'not-found', secrets());
    expect(error.message).toMatch(/cam-zz/);
    expect(error.status).toBe(404);
  });

  it("provider down is 'unreachable'", async () => {
    const down = apiKeyTokenKind.connect(
      ApiKeyTokenConfig.parse({ baseUrl: await deadBaseUrl(), apiKey: API_KEY }),
      { now, policy: LOCAL },
    );
    const error = await expectFailure(down.snapshot('cam-a', TIMEOUT), 'unreachable', [API_KEY]);
    expect(error.message).toMatch(/getting an API token/);
    expect(error.message).toMatch(/ECONNREFUSED/);

    // A connection dropped before any answer (the provider restarting) is unreachable too.
    fake.fail('devices', 'reset');
    await expectFailure(provider.listCameras(TIMEOUT), 'unreachable', secrets());
    fake.fail('thumbnail', 'reset');
    await expectFailure(provider.snapshot('cam-a', TIMEOUT), 'unreachable', secrets());
  });

  it("a hanging token endpoint or thumbnail is 'timeout'", async () => {
    fake.fail('token', 'hang');
    const tokenHang = await expectFailure(provider.snapshot('cam-a', SHORT), 'timeout', secrets());
    expect(tokenHang.message).toMatch(/getting an API token/);

    fake.fail('thumbnail', 'hang');
    await expectFailure(provider.snapshot('cam-a', SHORT), 'timeout', secrets());
  });

  it("429 is 'bad-response' with the Retry-After; a failed token request is not cached", async () => {
    fake.fail('token', { status: 429, retryAfter: '30', body: { message: 'Too many requests' } });
    const error = await expectFailure(provider.listCameras(TIMEOUT), 'bad-response', secrets());
    expect(error.status).toBe(429);
    expect(error.message).toMatch(/rate limited \(HTTP 429\), retry after 30 s/);

    fake.fail('devices', { status: 429, retryAfter: '12' });
    expect((await expectFailure(provider.listCameras(TIMEOUT), 'bad-response', secrets())).message).toMatch(
      /retry after 12 s/,
    );
    expect(await provider.listCameras(TIMEOUT)).toHaveLength(5);
    expect(fake.tokenRequests).toBe(2);
  });

  it("a provider error or a non-JSON answer is 'bad-response'", async () => {
    fake.fail('devices', { status: 503 });
    const error = await expectFailure(provider.listCameras(TIMEOUT), 'bad-response', secrets());
    expect(error.message).toMatch(/HTTP 503/);
    expect(error.status).toBe(503);

    fake.fail('thumbnail', { status: 500 });
    expect((await expectFailure(provider.snapshot('cam-a', TIMEOUT), 'bad-response', secrets())).status).toBe(
      500,
    );
  });

  it('an upstream error that echoes the key or token is redacted', async () => {
    await provider.snapshot('cam-a', TIMEOUT);
    const token = fake.issuedTokens[0]!;
    fake.fail('devices', { status: 500, body: { message: `bad token ${token} for key ${API_KEY}` } });
    const error = await expectFailure(provider.listCameras(TIMEOUT), 'bad-response', secrets());
    expect(error.message).toMatch(/bad token \[redacted\] for key \[redacted\]/);
  });
});

// ---- frame-url ------------------------------------------------------------------------------------

describe('frame-url', () => {
  const CLIENT_ID = 'yard-service-client';
  const CLIENT_SECRET = 'cs_9d8e7f6a5b4c3d2e1f0a';
  let fake: FakeFrameUrlService;
  let provider: CameraProvider;
  const secrets = () => [CLIENT_SECRET, ...fake.issuedTokens, 'signature='];

  async function startFake(options: Partial<ConstructorParameters<typeof FakeFrameUrlService>[0]> = {}) {
    fake = await started(
      new FakeFrameUrlService({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        cameras: CAMERAS,
        now,
        ...options,
      }),
    );
    provider = connect();
  }

  function connect(overrides: Partial<FrameUrlConfig> = {}): CameraProvider {
    return frameUrlKind.connect(
      FrameUrlConfig.parse({
        baseUrl: fake.baseUrl,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        ...overrides,
      }),
      { now, policy: LOCAL },
    );
  }

  it('config schema accepts sample configs and refuses broken ones', () => {
    const base = {
      baseUrl: 'https://api.camera-cloud.example',
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    };
    expect(FrameUrlConfig.safeParse(base).success).toBe(true);
    expect(
      FrameUrlConfig.safeParse({
        ...base,
        tokenUrl: 'https://auth.camera-cloud.example/token',
        scope: 'cameras.read',
      }).success,
    ).toBe(true);
    expect(FrameUrlConfig.safeParse({ ...base, clientSecret: undefined }).success).toBe(false);
    expect(FrameUrlConfig.safeParse({ ...base, clientId: '  ' }).success).toBe(false);
    expect(FrameUrlConfig.safeParse({ ...base, tokenUrl: 'not a url' }).success).toBe(false);
    expect(
      FrameUrlConfig.safeParse({ ...base, baseUrl: 'https://id:secret@api.camera-cloud.example' }).success,
    ).toBe(false);
  });

  it('lists every camera across cursor pages', async () => {
    await startFake();
    const cameras = await provider.listCameras(TIMEOUT);
    expect(cameras.map((c) => c.id)).toEqual(['cam-a', 'cam-b', 'cam-c', 'cam-d', 'cam-e']);
    expect(cameras[1]).toEqual({ id: 'cam-b', name: 'Gate 1 out', location: 'North yard', online: false });
    expect(cameras[3]).toEqual({ id: 'cam-d', name: 'Scale house', location: null, online: true });
    expect(fake.count('cameras')).toBe(3);
  });

  it('requests a frame URL, then fetches it without credentials; bytes are what was served', async () => {
    await startFake();
    provider = connect({ scope: 'cameras.read snapshots' });
    const shot = await provider.snapshot('cam-c', TIMEOUT);
    expect(shot.bytes.equals(fake.last('cam-c')!)).toBe(true);
    const frameGets = fake.requests.filter((r) => r.route === 'frame');
    expect(frameGets).toHaveLength(1);
    expect(frameGets[0]).toMatchObject({ status: 200, authorization: null });
    expect(fake.tokenForms.map((f) => Object.fromEntries(f))).toEqual([
      { grant_type: 'client_credentials', scope: 'cameras.read snapshots' },
    ]);
    // Client authentication is HTTP Basic with the form-urlencoded id and secret (RFC 6749 2.3.1).
    const tokenRequest = fake.requests.find((r) => r.route === 'token')!;
    expect(tokenRequest.authorization).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
    );
  });

  it('polls a frame URL that is not ready yet (404) until it is', async () => {
    await startFake({ frameNotReadyFor: 2 });
    const shot = await provider.snapshot('cam-a', TIMEOUT);
    expect(shot.bytes.equals(fake.last('cam-a')!)).toBe(true);
    expect(fake.requests.filter((r) => r.route === 'frame').map((r) => r.status)).toEqual([404, 404, 200]);
  });

  it("a frame never ready within the timeout is 'timeout'", async () => {
    await startFake({ frameNotReadyFor: 1_000 });
    const error = await expectFailure(provider.snapshot('cam-a', { timeoutMs: 700 }), 'timeout', secrets());
    expect(error.message).toMatch(/still not ready/);
  });

  it('an expired signed URL is reported with a hint about the clock, without the signature', async () => {
    await startFake({ frameUrlLifetimeMs: 0 });
    const error = await expectFailure(provider.snapshot('cam-a', TIMEOUT), 'bad-response', secrets());
    expect(error.message).toMatch(/the signed frame URL on 127\.0\.0\.1:\d+/);
    expect(error.message).toMatch(/clock/);
    expect(error.message).not.toMatch(/\/frames\//);
  });

  it('reuses the token until expires_in runs out, then fetches a new one', async () => {
    await startFake({ tokenLifetimeSeconds: 600 });
    await provider.listCameras(TIMEOUT);
    await provider.snapshot('cam-a', TIMEOUT);
    await provider.snapshot('cam-b', TIMEOUT);
    expect(fake.tokenRequests).toBe(1);
    clock += 8 * MINUTE;
    await provider.snapshot('cam-a', TIMEOUT);
    expect(fake.tokenRequests).toBe(1);
    clock += 1.5 * MINUTE;
    await provider.snapshot('cam-a', TIMEOUT);
    expect(fake.tokenRequests).toBe(2);
  });

  it('without expires_in, assumes a 10 minute token', async () => {
    await startFake({ omitExpiresIn: true, tokenLifetimeSeconds: 3600 });
    await provider.snapshot('cam-a', TIMEOUT);
    clock += 8 * MINUTE;
    await provider.snapshot('cam-a', TIMEOUT);
    expect(fake.tokenRequests).toBe(1);
    clock += 1.5 * MINUTE;
    await provider.snapshot('cam-a', TIMEOUT);
    expect(fake.tokenRequests).toBe(2);
  });

  it('a 401 on the frame request refreshes the token once and retries', async () => {
    await startFake();
    await provider.snapshot('cam-a', TIMEOUT);
    fake.revokeAllTokens();
    const shot = await provider.snapshot('cam-d', TIMEOUT);
    expect(shot.bytes.equals(fake.last('cam-d')!)).toBe(true);
    expect(fake.tokenRequests).toBe(2);
    expect(fake.requests.filter((r) => r.route === 'snapshot').map((r) => r.status)).toEqual([201, 401, 201]);
  });

  it('concurrent snapshots share one token request', async () => {
    await startFake();
    const ids = ['cam-a', 'cam-b', 'cam-c', 'cam-d', 'cam-e'];
    const shots = await Promise.all([...ids, ...ids].map((id) => provider.snapshot(id, TIMEOUT)));
    expect(shots).toHaveLength(10);
    expect(fake.tokenRequests).toBe(1);
  });

  it("a bad client secret is 'unauthorized', and nothing secret is in the message", async () => {
    await startFake();
    const bad = connect({ clientSecret: 'cs_wrong_secret_0000' });
    const error = await expectFailure(bad.snapshot('cam-a', TIMEOUT), 'unauthorized', [
      ...secrets(),
      'cs_wrong_secret_0000',
      Buffer.from(`${CLIENT_ID}:cs_wrong_secret_0000`).toString('base64'),
    ]);
    expect(error.message).toMatch(
      /^frame-url: getting an OAuth access token from http:\/\/127\.0\.0\.1:\d+\/oauth\/token/,
    );
    expect(error.message).toMatch(/invalid_client|Client authentication failed/);
    expect(error.message).toMatch(/client secret/);
  });

  it("an unknown camera is 'not-found'", async () => {
    await startFake();
    const error = await expectFailure(provider.snapshot('cam-zz', TIMEOUT), 'not-found', secrets());
    expect(error.message).toMatch(/requesting a frame URL for camera "cam-zz"/);
    expect(fake.count('frame')).toBe(0);
  });

  it("provider down is 'unreachable'; a hang is 'timeout'; 429 carries Retry-After", async () => {
    await startFake();
    const down = frameUrlKind.connect(
      FrameUrlConfig.parse({
        baseUrl: await deadBaseUrl(),
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
      }),
      { now, policy: LOCAL },
    );
    await expectFailure(down.listCameras(TIMEOUT), 'unreachable', [CLIENT_SECRET]);

    fake.fail('snapshot', 'hang');
    const hang = await expectFailure(provider.snapshot('cam-a', SHORT), 'timeout', secrets());
    expect(hang.message).toMatch(/requesting a frame URL/);

    fake.fail('frame', 'hang');
    await expectFailure(provider.snapshot('cam-a', SHORT), 'timeout', secrets());

    fake.fail('cameras', { status: 429, retryAfter: 'Mon, 02 Mar 2026 08:01:00 GMT' });
    const limited = await expectFailure(provider.listCameras(TIMEOUT), 'bad-response', secrets());
    expect(limited.message).toMatch(/retry after Mon, 02 Mar 2026 08:01:00 GMT/);
  });
});
