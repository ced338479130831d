import { stat } from 'node:fs/promises';
import { canSeeYard, type Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import {
  ConflictError,
  NotFoundError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../http/errors.js';
import { zodIssuesToFieldErrors } from '../../http/validation.js';
import { newId } from '../../ids.js';
import type { SettingsService } from '../settings/service.js';
import { BlobStore, type TempBlob } from './blob-store.js';
import { type AttachmentLimits, attachmentLimits, isAllowedType } from './limits.js';
import type { MissingBytes } from './missing-bytes.js';
import { AttachmentRepo, type AttachmentRow } from './repo.js';

/** A stored attachment's row, as the service hands it to other modules. */
export type { AttachmentRow };

import { type AttachmentOutT, type AttachmentRefTypeT, AttachmentUploadFields } from './schema.js';
import { sniffContentType } from './sniff.js';

export interface AttachmentMeta {
  filename: string;
  refType?: AttachmentRefTypeT | undefined;
  refId?: string | undefined;
}

/** Who stored it: a principal, or the system (e.g. a camera snapshot taken for a movement). */
export type Creator = Pick<Principal, 'id' | 'kind' | 'yardIds'> | null;

export type AttachmentDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'log' | 'paths'> & {
  settings: SettingsService;
  /** Where bytes of a record that came through sync come from when they are not here. */
  missingBytes: MissingBytes;
};

export class AttachmentService {
  readonly repo: AttachmentRepo;
  readonly blobs: BlobStore;
  private readonly storedListeners = new Set<(row: AttachmentRow) => void>();

  constructor(private readonly deps: AttachmentDeps) {
    this.repo = new AttachmentRepo(deps.kysely);
    this.blobs = new BlobStore(deps.paths.attachments);
  }

  limits(): Promise<AttachmentLimits> {
    return attachmentLimits(this.deps.settings);
  }

  /** An upload from POST /api/attachment: the temp file is stored or removed, never left behind. */
  async storeUpload(
    temp: TempBlob | undefined,
    originalName: string | undefined,
    rawFields: unknown,
    principal: Principal,
  ): Promise<AttachmentOutT> {
    try {
      const fields = AttachmentUploadFields.safeParse({ ...(rawFields as object) });
      const errors = fields.success ? [] : zodIssuesToFieldErrors(fields.error.issues, 'body');
      if (!temp) errors.push({ path: 'body.file', message: 'a file is required in the field "file"' });
      if (errors.length > 0 || !temp || !fields.success) throw new ValidationError(errors);
      return await this.store(temp, { ...fields.data, filename: originalName ?? '' }, principal);
    } finally {
      await this.blobs.discardTemp(temp?.path);
    }
  }

  /** Bytes produced on the server (camera snapshots), subject to the same type rules. */
  async storeBuffer(bytes: Buffer, meta: AttachmentMeta, creator: Creator): Promise<AttachmentOutT> {
    const temp = await this.blobs.writeTempBuffer(bytes);
    try {
      return await this.store(temp, meta, creator);
    } finally {
      await this.blobs.discardTemp(temp.path);
    }
  }

  /**
   * Runs `listener` after each attachment stored through this service (uploads, camera snapshots):
   * the edge's uploader wakes up on it. Answers the function that removes the listener.
   */
  onStored(listener: (row: AttachmentRow) => void): () => void {
    this.storedListeners.add(listener);
    return () => this.storedListeners.delete(listener);
  }

  /**
   * The attachment and the path of its bytes, if the principal may read it. Bytes not here (the
   * record came through sync) are fetched from the cloud at a linked edge; at the cloud, bytes a
   * site has not uploaded yet are 503 attachment-not-uploaded.
   */
  async forDownload(id: string, principal: Principal): Promise<{ row: AttachmentRow; path: string }> {
    const row = await this.visibleRow(id, principal);
    const path = this.blobs.pathOf(row.sha256);
    if (!(await isFile(path))) await this.deps.missingBytes.ensureLocal(row, this.blobs);
    return { row, path };
  }

  /**
   * The rule for listing attachments as a record's evidence (a movement's or an inspection's
   * attachmentIds; docs/domain.md "Attachments"): each must be readable by the principal and
   * belong to the record's yard, i.e. be attached to a record of that yard, or not be attached yet
   * and have been uploaded by the principal. Anything else answers 404 like an unknown id, so ids
   * of other yards are not confirmed.
   */
  async assertEvidenceFor(yardId: string, ids: readonly string[], principal: Principal): Promise<void> {
    for (const id of new Set(ids)) {
      const row = await this.repo.byId(id);
      if (!row || !(await this.belongsTo(row, yardId, principal))) {
        throw new NotFoundError('Attachment in this yard', id);
      }
    }
  }

  private async belongsTo(row: AttachmentRow, yardId: string, principal: Principal): Promise<boolean> {
    if (!(await this.mayRead(row, principal))) return false;
    if (!row.refType || !row.refId) {
      const yards = await this.repo.evidenceYards(row.id);
      return yards.length > 0 ? yards.every((y) => y === yardId) : isUploader(row, principal);
    }
    return (await this.repo.refTarget(row.refType as AttachmentRefTypeT, row.refId))?.yardId === yardId;
  }

  /** Deletes the record; the bytes go too when no other record has the same content. */
  async delete(id: string, principal: Principal): Promise<void> {
    const row = await this.visibleRow(id, principal);
    if (await this.repo.isListedAsEvidence(id)) {
      throw new ConflictError(
        'in-use',
        'A movement or inspection lists this attachment as evidence; those records are immutable.',
      );
    }
    await this.blobs.withContentLock(row.sha256, async () => {
      await this.deps.changes.delete(this.deps.kysely, 'attachment', id);
      if ((await this.repo.countBySha(row.sha256)) === 0) await this.blobs.remove(row.sha256);
    });
  }

  private async store(temp: TempBlob, meta: AttachmentMeta, creator: Creator): Promise<AttachmentOutT> {
    const { allowedTypes } = await this.limits();
    if (temp.size === 0) throw new ValidationError([{ path: 'body.file', message: 'the file is empty' }]);
    const contentType = sniffContentType(temp.head);
    if (!contentType || !isAllowedType(contentType, allowedTypes)) {
      throw new UnsupportedMediaTypeError(
        `${contentType ? `Files of type ${contentType} are` : 'This kind of file is'} not accepted. Allowed: ${allowedTypes.join(', ')}.`,
      );
    }
    if (meta.refType && meta.refId) await this.assertRefVisible(meta.refType, meta.refId, creator);
    return this.blobs.withContentLock(temp.sha256, async () => {
      const created = await this.blobs.commit(temp);
      try {
        const row = await this.deps.changes.insert(this.deps.kysely, 'attachment', {
          id: newId(),
          filename: safeFilename(meta.filename, contentType),
          contentType,
          size: temp.size,
          sha256: temp.sha256,
          refType: meta.refType ?? null,
          refId: meta.refId ?? null,
          createdBy: creator?.id ?? null,
          createdByKind: creator?.kind ?? null,
          createdAt: this.deps.clock.now(),
        });
        this.notifyStored(row);
        return attachmentOut(row);
      } catch (err) {
        if (created) await this.blobs.remove(temp.sha256);
        throw err;
      }
    });
  }

  /** A listener's failure must not undo a stored attachment. */
  private notifyStored(row: AttachmentRow): void {
    for (const listener of this.storedListeners) {
      try {
        listener(row);
      } catch (err) {
        this.deps.log.error({ err, attachmentId: row.id }, 'attachment stored listener failed');
      }
    }
  }

  private async assertRefVisible(refType: AttachmentRefTypeT, refId: string, creator: Creator) {
    // A driver's files are its own: attached to nothing (a task's record lists them) or to itself.
    if (creator?.kind === 'driver' && !(refType === 'driver' && refId === creator.id)) {
      throw new ValidationError([
        {
          path: 'body.refId',
          message: 'a driver attaches files only to their own driver record: leave refType out',
        },
      ]);
    }
    const target = await this.repo.refTarget(refType, refId);
    const visible =
      target !== undefined && (creator === null || !target.yardId || canSeeYard(creator, target.yardId));
    if (!visible) throw new ValidationError([{ path: 'body.refId', message: `no ${refType} with this id` }]);
  }

  /**
   * Drivers see only what they uploaded. An upload not attached to a record (no refType) is its
   * uploader's and the admins' until a movement or inspection lists it as evidence; then it is
   * seen like that record (by its yard). Staff with a yard scope see attachments of records in
   * their yards and those of records not tied to a yard. Anything else is "not found", so ids are
   * not confirmed (docs/domain.md "Attachments").
   */
  private async visibleRow(id: string, principal: Principal): Promise<AttachmentRow> {
    const row = await this.repo.byId(id);
    if (!row || !(await this.mayRead(row, principal))) throw new NotFoundError('Attachment', id);
    return row;
  }

  private async mayRead(row: AttachmentRow, principal: Principal): Promise<boolean> {
    if (principal.role === 'driver') return isUploader(row, principal);
    if (!row.refType || !row.refId) {
      if (principal.role === 'admin' && principal.yardIds === null) return true;
      if (isUploader(row, principal)) return true;
      const yards = await this.repo.evidenceYards(row.id);
      return yards.some((y) => canSeeYard(principal, y));
    }
    if (principal.yardIds === null) return true;
    const target = await this.repo.refTarget(row.refType as AttachmentRefTypeT, row.refId);
    return !target?.yardId || canSeeYard(principal, target.yardId);
  }
}

/** Whether the principal stored this attachment (the system stores camera snapshots: no one). */
function isUploader(row: AttachmentRow, principal: Pick<Principal, 'id' | 'kind'>): boolean {
  return row.createdBy !== null && row.createdBy === principal.id && row.createdByKind === principal.kind;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

const EXTENSION: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
  'application/pdf': 'pdf',
};

/**
 * Characters a stored file name never keeps: the C0 and C1 controls and DEL (Unicode Cc), and the
 * bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
 * U+2069), which can make "invoice\u202Egpj.exe" read as "invoiceexe.jpg"; and the double quote
 * (Content-Disposition). docs/domain.md "Attachments".
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const UNSAFE_IN_FILENAME = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"]/g;

/** The base name only, without the characters above or path separators; never empty. */
export function safeFilename(name: string, contentType: string): string {
  const base = (name.split(/[/\\]/).pop() ?? '')
    .replace(UNSAFE_IN_FILENAME, '')
    .trim()
    .replace(/^\.+/, '')
    .slice(0, 200);
  return base || `attachment.${EXTENSION[contentType] ?? 'bin'}`;
}

export function attachmentOut(row: AttachmentRow): AttachmentOutT {
  return {
    id: row.id,
    filename: row.filename,
    contentType: row.contentType,
    size: row.size,
    sha256: row.sha256,
    refType: row.refType,
    refId: row.refId,
    createdBy: row.createdBy,
    createdByKind: row.createdByKind,
    createdAt: toIso(row.createdAt),
  };
}
