import { Id, IsoDateTime } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
import { z } from '../../http/zod.js';

/** What an attachment may be attached to; each maps to a table checked on upload (see repo.ts). */
export const AttachmentRefType = z
  .enum(['movement', 'inspection', 'trailer', 'truck', 'driver', 'yard', 'camera'])
  .openapi({ description: 'kind of record the file belongs to (refId is then required)' });

export const AttachmentOut = z
  .object({
    id: Id,
    filename: z.string(),
    contentType: z.string().openapi({ description: 'detected from the file content, not the client' }),
    size: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    refType: z.string().nullable(),
    refId: z.string().nullable(),
    createdBy: z.string().nullable(),
    createdByKind: z.string().nullable(),
    createdAt: IsoDateTime,
  })
  .openapi('Attachment');

/** The non-file fields of the multipart upload (multer gives them as strings). */
export const AttachmentUploadFields = z
  .object({
    refType: AttachmentRefType.optional(),
    refId: Id.optional(),
  })
  .strict()
  .refine((f) => (f.refType === undefined) === (f.refId === undefined), {
    message: 'Give both what the file is attached to and which record, or neither.',
    path: ['refId'],
  });

/** The multipart body, for the OpenAPI document. */
export const AttachmentUpload = z
  .object({
    file: z.string().openapi({
      type: 'string',
      format: 'binary',
      description: 'exactly one file; its type is detected from its content',
    }),
    refType: AttachmentRefType.optional(),
    refId: Id.optional(),
  })
  .openapi('AttachmentUpload', {
    description: 'One file in the field "file", optionally attached to a record (refType + refId).',
    example: { file: '(the bytes of the file)', refType: 'movement', refId: EXAMPLE_ID.movement },
  });

export type AttachmentOutT = z.infer<typeof AttachmentOut>;
export type AttachmentRefTypeT = z.infer<typeof AttachmentRefType>;
export type AttachmentUploadFieldsT = z.infer<typeof AttachmentUploadFields>;
