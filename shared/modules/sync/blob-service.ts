import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Core } from '../../core.js';
import { AppError, BadRequestError, ConflictError, PayloadTooLargeError } from '../../http/errors.js';
import type { BlobStore } from '../attachments/blob-store.js';
import type { HeldBytes } from './blob-client.js';

/** A request body that sends nothing for this long is given up (its bytes so far are kept). */
const BODY_IDLE_MS = 30_000;

/**
 * The cloud's side of attachment bytes from edges (SYNC.md: uploaded by the edge over HTTP,
 * resumable by sha256). A tus-like protocol on one URL per sha256:
 * - HEAD answers `Upload-Offset` (bytes held) and `Upload-Complete` (?1 when stored);
 * - PATCH with `Upload-Offset` (must equal the bytes held) and `Upload-Length` (the total) appends;
 *   when the last byte is in, the sha256 is checked and the file moved into the blob store.
 * Partial uploads live in `<attachments>/partial/<sha256>`, fsynced before each answer, so an offset
 * the cloud answered survives a crash. Content addressing makes the upload safe to accept for any
 * sha256 from any site: bytes that do not hash to their name are never stored.
 */
export class SyncBlobService {
  /** Uploads being written now: one writer per sha256, a second one gets 409 upload-in-progress. */
  private readonly writing = new Set<string>();

  constructor(private readonly core: Core) {}

  private get blobs(): BlobStore {
    return this.core.services.attachments.blobs;
  }

  partialPathOf(sha256: string): string {
    return join(this.blobs.root, 'partial', sha256);
  }

  /** Size of the stored blob, or undefined when it is not (completely) here. */
  async storedSize(sha256: string): Promise<number | undefined> {
    return sizeOf(this.blobs.pathOf(sha256));
  }

  /** What is held for this sha256: the stored blob, else the partial upload, else nothing. */
  async held(sha256: string): Promise<HeldBytes> {
    const stored = await this.storedSize(sha256);
    if (stored !== undefined) return { offset: stored, complete: true };
    return { offset: (await sizeOf(this.partialPathOf(sha256))) ?? 0, complete: false };
  }

  /**
   * Appends a PATCH body at `offset`. Checks come before any byte is written: the declared length
   * against attachments.maxBytes (413), the offset against the bytes held (409 offset-mismatch).
   * A body cut short keeps what arrived (that is what makes the upload resumable).
   */
  async append(sha256: string, offset: number, length: number, body: Readable): Promise<HeldBytes> {
    const { maxBytes } = await this.core.services.attachments.limits();
    if (length > maxBytes) {
      throw new PayloadTooLargeError(
        `Upload-Length ${length} is larger than the limit of ${maxBytes} bytes (setting attachments.maxBytes).`,
      );
    }
    if (offset > length) {
      throw new BadRequestError(
        'offset-mismatch',
        `Upload-Offset ${offset} is beyond Upload-Length ${length}.`,
      );
    }
    if (this.writing.has(sha256)) {
      throw new ConflictError(
        'upload-in-progress',
        'Another upload of these bytes is being received; ask HEAD for the offset and continue later.',
      );
    }
    this.writing.add(sha256);
    try {
      const held = await this.held(sha256);
      // Already stored (by this site earlier, or another site with the same bytes): nothing to do.
      if (held.complete) return held;
      if (held.offset > length) {
        // A partial longer than the whole can never complete (a client that declared another
        // length); drop it so the upload can start over.
        await rm(this.partialPathOf(sha256), { force: true });
        held.offset = 0;
      }
      if (held.offset !== offset) {
        throw new ConflictError(
          'offset-mismatch',
          `The cloud holds ${held.offset} bytes of this upload; send from Upload-Offset ${held.offset}.`,
          { offset: held.offset },
        );
      }
      const written = await this.writePart(sha256, offset, length, body);
      if (written < length) return { offset: written, complete: false };
      await this.finish(sha256, length);
      return { offset: length, complete: true };
    } finally {
      this.writing.delete(sha256);
    }
  }

  /** Writes the body after `offset`, fsyncs, and answers the new size of the partial file. */
  private async writePart(sha256: string, offset: number, length: number, body: Readable): Promise<number> {
    const path = this.partialPathOf(sha256);
    await mkdir(join(this.blobs.root, 'partial'), { recursive: true });
    const file = await open(path, 'a', 0o600);
    let size = offset;
    let failure: AppError | undefined;
    try {
      for await (const chunk of withIdleLimit(body, BODY_IDLE_MS)) {
        if (size + chunk.length > length) {
          failure = new BadRequestError(
            'upload-length-exceeded',
            `The body goes beyond Upload-Length ${length}; nothing of this request was kept.`,
          );
          break;
        }
        await file.write(chunk);
        size += chunk.length;
      }
    } catch {
      // The client went away or stalled: keep what arrived, the next PATCH continues from it.
      failure = new BadRequestError('upload-interrupted', `The body ended early; ${size} bytes are held.`);
      body.destroy();
    }
    try {
      if (failure?.code === 'upload-length-exceeded') await file.truncate(offset);
      await file.sync();
    } finally {
      await file.close();
    }
    if (failure) throw failure;
    return size;
  }

  /** Checks the complete partial file against its name and moves it into the blob store. */
  private async finish(sha256: string, length: number): Promise<void> {
    const path = this.partialPathOf(sha256);
    const actual = await hashFile(path);
    if (actual !== sha256) {
      await rm(path, { force: true });
      throw new AppError(
        422,
        'checksum-mismatch',
        'Checksum mismatch',
        `The ${length} bytes received hash to ${actual}, not ${sha256}; they were discarded. Upload again from offset 0.`,
      );
    }
    await this.blobs.withContentLock(sha256, () =>
      this.blobs.commit({ path, size: length, sha256, head: Buffer.alloc(0) }),
    );
  }
}

async function sizeOf(path: string): Promise<number | undefined> {
  return stat(path).then(
    (s) => (s.isFile() ? s.size : undefined),
    () => undefined,
  );
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** Iterates a stream's chunks; fails when none came for `idleMs` (a half-dead client). */
async function* withIdleLimit(body: Readable, idleMs: number): AsyncGenerator<Buffer> {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => body.destroy(new Error(`no data for ${idleMs} ms`)), idleMs);
  };
  arm();
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      arm();
      yield chunk;
    }
  } finally {
    clearTimeout(timer);
  }
}
