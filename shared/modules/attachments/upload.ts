import { rm } from 'node:fs/promises';
import type { Request, RequestHandler } from 'express';
import multer, { MulterError, type StorageEngine } from 'multer';
import {
  type AppError,
  BadRequestError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../http/errors.js';
import type { BlobStore, TempBlob } from './blob-store.js';
import type { AttachmentService } from './service.js';

/** What the storage engine leaves on req.file: multer's fields plus the hash and first bytes. */
type UploadedFile = Express.Multer.File & { temp: TempBlob };

/** Streams the one file into a hashed, fsynced temp file; multer calls _removeFile when it aborts. */
class HashingTempStorage implements StorageEngine {
  constructor(private readonly blobs: BlobStore) {}

  _handleFile(
    _req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    this.blobs.writeTemp(file.stream).then(
      (temp) => callback(null, { path: temp.path, size: temp.size, temp } as Partial<UploadedFile>),
      (err) => callback(err),
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    rm(file.path, { force: true }).then(
      () => callback(null),
      (err: Error) => callback(err),
    );
  }
}

/**
 * Parses the multipart body of POST /api/attachment: one file in the field `file`, at most
 * attachments.maxBytes, plus small text fields. Leaves the temp blob on req.file.
 */
export function uploadMiddleware(service: AttachmentService): RequestHandler {
  const storage = new HashingTempStorage(service.blobs);
  return async (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next(new UnsupportedMediaTypeError('Send the file as multipart/form-data in the field "file".'));
      return;
    }
    const { maxBytes } = await service.limits();
    const parse = multer({
      storage,
      limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 1024, parts: 12 },
      defParamCharset: 'utf8',
    }).single('file');
    parse(req, res, (err?: unknown) => next(err ? uploadError(err, maxBytes) : undefined));
  };
}

/** The temp blob multer stored for this request, if a file came. */
export function uploadedTemp(req: Request): { temp: TempBlob; originalName: string } | undefined {
  const file = req.file as UploadedFile | undefined;
  return file ? { temp: file.temp, originalName: file.originalname } : undefined;
}

function uploadError(err: unknown, maxBytes: number): AppError | unknown {
  if (err instanceof MulterError) {
    const field = `body.${err.field ?? 'file'}`;
    switch (err.code) {
      case 'LIMIT_FILE_SIZE':
        return new PayloadTooLargeError(
          `The file is larger than the limit of ${maxBytes} bytes (setting attachments.maxBytes).`,
        );
      case 'LIMIT_FILE_COUNT':
      case 'LIMIT_UNEXPECTED_FILE':
        return new ValidationError([{ path: field, message: 'send exactly one file, in the field "file"' }]);
      default:
        return new ValidationError([{ path: field, message: err.message }]);
    }
  }
  // A failed file write (a full disk: 507 storage-full, any other: 500) is the server's, not the body's.
  if (err instanceof Error && 'syscall' in err) return err;
  if (err instanceof Error && !('status' in err)) {
    return new BadRequestError('malformed-multipart', `The multipart body could not be read: ${err.message}`);
  }
  return err;
}
