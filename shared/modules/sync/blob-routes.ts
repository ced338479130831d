import { parse as parseAuthHeader } from 'auth-header';
import type { Request, Response } from 'express';
import type { Principal } from '../../auth/principal.js';
import {
  AppError,
  ForbiddenError,
  NotFoundError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../http/errors.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import type { HeldBytes } from './blob-client.js';
import type { SyncBlobService } from './blob-service.js';

const TAG = 'Sync';

const BlobParams = z.object({
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be a sha256 in lower-case hex (64 characters)')
    .openapi({ description: 'sha256 of the attachment bytes (lower-case hex)' }),
});

const UPLOAD_TYPES = ['application/offset+octet-stream', 'application/octet-stream'];

const SITE_AUTH =
  'Sites authenticate with HTTP Basic: their site id and MQTT password (the same credentials as their MQTT login). ' +
  'Only the cloud serves this route; an edge answers 404.';

/**
 * Attachment bytes between edges and the cloud (docs/sync.md "Attachment bytes"). Access is checked here rather than by the
 * registrar's roles: they are for staff principals, and a site is not one. The routes are registered
 * as public with their own `authenticate` step, which the registrar runs before it parses anything:
 * without valid credentials they answer 401, whatever the sha256.
 *
 * `siteBytes` is the cloud's side of the exchange; an edge has none (shared/services.ts) and
 * answers 404 whoever asks.
 */
export function registerSyncBlobRoutes(
  r: RouteRegistrar,
  { siteBytes }: { siteBytes: SyncBlobService | undefined },
): void {
  /** The service, once authorizeBlobAccess has let the request through (it 404s without one). */
  const service = (): SyncBlobService => siteBytes ?? throwNotHere();

  r.add({
    method: 'get',
    path: '/api/sync/blob/{sha256}',
    tag: TAG,
    summary: 'Attachment bytes by sha256 (HEAD: how many bytes of an upload the cloud holds)',
    description:
      'GET answers the complete bytes (404 while they are not all at the cloud). ' +
      'HEAD answers 200 with `Upload-Offset` (bytes held, 0 when none) and `Upload-Complete` (`?1` when stored, else `?0`): ' +
      'an uploading site continues with PATCH from that offset. ' +
      'A site reaches only bytes that its own rows reference (an attachment of one of its yards, an org-wide one, or one it made); for any other sha256 it gets the answers for bytes that do not exist (GET 404, HEAD its own partial upload or 0). ' +
      `${SITE_AUTH} Staff bearer tokens with role admin may also read.`,
    access: 'public',
    authenticate: async (req, res) => {
      res.locals.blobReader = await authorizeBlobAccess(siteBytes, req, res, { adminMayRead: true });
    },
    params: BlobParams,
    response: { contentType: 'application/octet-stream', description: 'the bytes' },
    errors: [401, 403, 404],
    handler: async ({ params, req, res }) => {
      // Set by the route's authenticate step, before anything of the request was read.
      const reader = res.locals.blobReader as { siteId?: string };
      const sha256 = params.sha256;
      if (req.method === 'HEAD') {
        setHeld(res, await service().held(sha256, reader.siteId));
        res.setHeader('Cache-Control', 'no-store');
        res.status(200).end();
        return;
      }
      // A site reads only bytes its own rows reference; any other answers as if they did not exist.
      const visible = reader.siteId === undefined || (await service().visibleTo(reader.siteId, sha256));
      if (!visible || (await service().storedSize(sha256)) === undefined) {
        throw new NotFoundError('The bytes of', sha256);
      }
      await sendBlob(res, service().pathOf(sha256), sha256);
    },
  });

  r.add({
    method: 'patch',
    path: '/api/sync/blob/{sha256}',
    tag: TAG,
    summary: 'Upload attachment bytes, resumable (Upload-Offset, Upload-Length)',
    description:
      'Body: the bytes from `Upload-Offset` on (Content-Type application/offset+octet-stream). `Upload-Offset` must equal what ' +
      'HEAD answers (409 offset-mismatch with the current `Upload-Offset` otherwise); `Upload-Length` is the total size, ' +
      'at most attachments.maxBytes (413). A body cut short keeps what arrived. When every byte is in, the sha256 is ' +
      'checked: a mismatch answers 422 checksum-mismatch and the upload is discarded; a match stores the bytes. ' +
      "Each site's partial upload is its own; bytes already stored but not referenced by the site's rows must still be sent in full. " +
      'Answers 204 with `Upload-Offset` and `Upload-Complete`. Any sha256 is accepted (the bytes are addressed by their ' +
      `content, so nothing can be overwritten); the attachment's metadata may arrive before or after its bytes. ${SITE_AUTH}`,
    access: 'public',
    authenticate: async (req, res) => {
      res.locals.blobReader = await authorizeBlobAccess(siteBytes, req, res, { adminMayRead: false });
    },
    params: BlobParams,
    response: { status: 204, description: 'Bytes held; see Upload-Offset and Upload-Complete' },
    errors: [401, 403, 404, 409, 413, 415, 422],
    handler: async ({ params, req, res }) => {
      const { siteId } = res.locals.blobReader as { siteId?: string };
      if (!req.is(UPLOAD_TYPES)) {
        throw new UnsupportedMediaTypeError(`Send the bytes as ${UPLOAD_TYPES[0]}.`);
      }
      const { offset, length } = parseUploadHeaders(req);
      try {
        setHeld(res, await service().append(params.sha256, siteId!, offset, length, req));
      } catch (err) {
        if (err instanceof AppError && typeof err.extra?.offset === 'number') {
          res.setHeader('Upload-Offset', String(err.extra.offset));
        }
        throw err;
      }
    },
  });
}

/**
 * Lets a site (HTTP Basic, checked against the site register) or, for reads, an admin through;
 * answers which site (none for an admin). 404 at an edge whoever asks: edges neither receive nor
 * serve other sites' bytes.
 */
async function authorizeBlobAccess(
  siteBytes: SyncBlobService | undefined,
  req: Request,
  res: Response,
  rule: { adminMayRead: boolean },
): Promise<{ siteId?: string }> {
  if (!siteBytes) throwNotHere();
  const principal = res.locals.principal as Principal | null;
  if (principal) {
    if (rule.adminMayRead && principal.role === 'admin') return {};
    throw new ForbiddenError(
      rule.adminMayRead ? 'Only sites and admins may read these bytes.' : 'Only sites upload these bytes.',
    );
  }
  const header = req.get('authorization');
  const siteId = header ? await verifiedSite(siteBytes, header) : undefined;
  if (siteId !== undefined) return { siteId };
  // Written by hand: auth-header's format() leaves out the quotes and commas RFC 7617 asks for.
  res.setHeader('WWW-Authenticate', 'Basic realm="yard-sync", charset="UTF-8"');
  throw new UnauthenticatedError(
    header
      ? 'The site id or password is wrong.'
      : 'Send the site id and MQTT password as HTTP Basic credentials.',
  );
}

/** The site id of valid Basic credentials, else undefined. */
async function verifiedSite(siteBytes: SyncBlobService, header: string): Promise<string | undefined> {
  let token: ReturnType<typeof parseAuthHeader>;
  try {
    token = parseAuthHeader(header);
  } catch {
    return undefined;
  }
  if (token.scheme.toLowerCase() !== 'basic' || typeof token.token !== 'string') return undefined;
  const decoded = Buffer.from(token.token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const siteId = decoded.slice(0, colon);
  return (await siteBytes.verifySite(siteId, decoded.slice(colon + 1))) ? siteId : undefined;
}

/** An edge neither receives nor serves other sites' bytes. */
function throwNotHere(): never {
  throw new AppError(404, 'not-found', 'Not found', 'Attachment bytes are exchanged with the cloud only.');
}

const HeaderInt = z
  .string({ error: 'required' })
  .regex(/^\d{1,15}$/, 'must be a non-negative integer')
  .transform(Number);

const UploadHeaders = z.object({ 'upload-offset': HeaderInt, 'upload-length': HeaderInt });

function parseUploadHeaders(req: Request): { offset: number; length: number } {
  const parsed = UploadHeaders.safeParse({
    'upload-offset': req.get('upload-offset'),
    'upload-length': req.get('upload-length'),
  });
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((i) => ({ path: `headers.${i.path.join('.')}`, message: i.message })),
    );
  }
  return { offset: parsed.data['upload-offset'], length: parsed.data['upload-length'] };
}

function setHeld(res: Response, held: HeldBytes): void {
  res.setHeader('Upload-Offset', String(held.offset));
  res.setHeader('Upload-Complete', held.complete ? '?1' : '?0');
}

function sendBlob(res: Response, path: string, sha256: string): Promise<void> {
  res.set({
    'Content-Type': 'application/octet-stream',
    ETag: `"${sha256}"`,
    'Cache-Control': 'private, no-cache',
  });
  return new Promise((resolve, reject) => {
    res.sendFile(path, { etag: false, lastModified: false, cacheControl: false }, (err?: Error) =>
      err ? reject(err) : resolve(),
    );
  });
}
