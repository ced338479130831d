import type { Response } from 'express';
import { AppError } from '../../http/errors.js';
import type { AttachmentRow } from './repo.js';

/**
 * Streams stored bytes with express's sendFile (the `send` module), which answers Range (206/416)
 * and conditional requests against the ETag set here. Resolves once the answer is complete.
 */
export function sendAttachment(res: Response, row: AttachmentRow, path: string): Promise<void> {
  res.attachment(row.filename);
  res.set({
    'Content-Type': row.contentType,
    ETag: `"${row.sha256}"`,
    // Private: access depends on the caller; no-cache: revalidate (cheap 304) so deletes take effect.
    'Cache-Control': 'private, no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  });
  return new Promise((resolve, reject) => {
    res.sendFile(path, { etag: false, lastModified: false, cacheControl: false }, (err?: Error) => {
      if (!err) return resolve();
      reject(toProblem(err as Error & { status?: number; code?: string }, res, row));
    });
  });
}

function toProblem(
  err: Error & { status?: number; code?: string },
  res: Response,
  row: AttachmentRow,
): Error {
  if (res.headersSent) return err;
  res.removeHeader('Content-Disposition');
  res.removeHeader('ETag');
  if (err.status === 416) {
    res.setHeader('Content-Range', `bytes */${row.size}`);
    return new AppError(
      416,
      'range-not-satisfiable',
      'Range not satisfiable',
      `The requested range is outside the file (${row.size} bytes).`,
    );
  }
  if (err.status === 412) {
    return new AppError(
      412,
      'precondition-failed',
      'Precondition failed',
      'If-Match or If-Unmodified-Since failed.',
    );
  }
  if (err.status === 404 || err.code === 'ENOENT') {
    return new AppError(
      404,
      'not-found',
      'Not found',
      `The bytes of attachment ${row.id} are not on this server.`,
    );
  }
  return err;
}
