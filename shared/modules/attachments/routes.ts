import { STAFF } from '../../auth/principal.js';
import { IdParams } from '../../http/common-schemas.js';
import { AppError } from '../../http/errors.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { sendAttachment } from './download.js';
import { AttachmentOut, AttachmentUpload } from './schema.js';
import type { AttachmentService } from './service.js';
import { uploadedTemp, uploadMiddleware } from './upload.js';

const TAG = 'Attachment Controller';

export function registerAttachmentRoutes(
  r: RouteRegistrar,
  { attachments }: { attachments: AttachmentService },
): void {
  r.add({
    method: 'post',
    path: '/api/attachment',
    tag: TAG,
    summary: 'Upload a file (multipart field "file"; optional refType + refId)',
    description:
      'The type is detected from the content and must be one of the setting attachments.allowedTypes (415 otherwise); ' +
      'the size is limited by attachments.maxBytes (413). The bytes are on disk (fsynced) before the answer. ' +
      'Same bytes are stored once.',
    access: [...STAFF, 'driver'],
    body: AttachmentUpload,
    bodyType: 'multipart/form-data',
    middleware: [uploadMiddleware(attachments)],
    response: { status: 201, schema: AttachmentOut },
    errors: [413, 415],
    handler: async ({ req, res, principal }) => {
      const upload = uploadedTemp(req);
      const stored = await attachments.storeUpload(upload?.temp, upload?.originalName, req.body, principal);
      res.setHeader('Location', `/api/attachment/${stored.id}`);
      return stored;
    },
  });

  r.add({
    method: 'get',
    path: '/api/attachment/{id}',
    tag: TAG,
    summary: 'Download a file (Range, If-None-Match; drivers only their own uploads)',
    description:
      'Answers the bytes with their detected Content-Type, ETag "<sha256>", and Content-Disposition: attachment. ' +
      'Supports Range (206, 416) and If-None-Match (304). ' +
      'A linked edge fetches bytes it does not hold (an attachment made at the cloud) from the cloud first ' +
      '(502/504 cloud-unreachable when it cannot); the cloud answers 503 attachment-not-uploaded with Retry-After ' +
      'while the site that stored the attachment has not uploaded its bytes yet.',
    access: [...STAFF, 'driver'],
    params: IdParams,
    response: { contentType: 'application/octet-stream', description: 'the file' },
    errors: [404, 416, 502, 503, 504],
    handler: async ({ params, principal, res }) => {
      const { row, path } = await attachments.forDownload(params.id, principal).catch((err: unknown) => {
        const retryAfter = err instanceof AppError ? err.extra?.retryAfterSec : undefined;
        if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
        throw err;
      });
      await sendAttachment(res, row, path);
    },
  });

  r.add({
    method: 'delete',
    path: '/api/attachment/{id}',
    tag: TAG,
    summary: 'Delete an attachment (409 in-use while a movement or inspection lists it)',
    access: ['admin', 'gate'],
    params: IdParams,
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ params, principal }) => {
      await attachments.delete(params.id, principal);
    },
  });
}
