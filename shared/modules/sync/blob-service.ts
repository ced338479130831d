import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { CoreParts } from '../../core-parts.js';
import { AppError, BadRequestError, ConflictError, PayloadTooLargeError } from '../../http/errors.js';
import { SYNCED_BY_TABLE, type SyncedEntity } from '../../sync/entities.js';
import type { BlobStore } from '../attachments/blob-store.js';
import type { AttachmentService } from '../attachments/service.js';
import type { HeldBytes } from './blob-client.js';
import { SiteRepo } from './sites.js';

/** A request body that sends nothing for this long is given up (its bytes so far are kept). */
const BODY_IDLE_MS = 30_000;

/**
 * The cloud's side of attachment bytes from edges (docs/sync.md "Attachment bytes": uploaded by the edge over HTTP,
 * resumable by sha256). A tus-like protocol on one URL per sha256:
 * - HEAD answers `Upload-Offset` (bytes held) and `Upload-Complete` (?1 when stored);
 * - PATCH with `Upload-Offset` (must equal the bytes held) and `Upload-Length` (the total) appends;
 *   when the last byte is in, the sha256 is checked and the file moved into the blob store.
 * Partial uploads live in `<attachments>/partial/<sha256>.<site>`, fsynced before each answer, so an
 * offset the cloud answered survives a crash. Content addressing makes the upload safe to accept for
 * any sha256 from any site: bytes that do not hash to their name are never stored.
 *
 * What a site may learn is limited to the blobs its own rows reference (`visibleTo`): another
 * site's picture is neither served to it nor admitted to exist. For any other sha256 the site sees
 * what it would see if no one had uploaded those bytes: GET 404, HEAD its own partial upload or
 * nothing, and an upload must bring every byte (which proves it had them) before it answers
 * complete. Each site's partial upload is its own for the same reason.
 */
export type SyncBlobDeps = Pick<CoreParts, 'kysely' | 'syncSide'> & {
  attachments: Pick<AttachmentService, 'blobs' | 'limits'>;
};

export class SyncBlobService {
  /** Uploads being written now: one writer per site and sha256, another gets 409 upload-in-progress. */
  private readonly writing = new Set<string>();
  private readonly attachmentEntity = SYNCED_BY_TABLE.get('attachment') as SyncedEntity;
  private readonly sites: SiteRepo;

  constructor(private readonly deps: SyncBlobDeps) {
    this.sites = new SiteRepo(deps.kysely);
  }

  private get blobs(): BlobStore {
    return this.deps.attachments.blobs;
  }

  /** Whether these are a registered site's id and MQTT password (the site register). */
  verifySite(siteId: string, password: string): Promise<boolean> {
    return this.sites.verifyPassword(siteId, password);
  }

  /** Where the stored bytes of this sha256 are (whether they are there or not). */
  pathOf(sha256: string): string {
    return this.blobs.pathOf(sha256);
  }

  partialPathOf(sha256: string, siteId: string): string {
    return join(this.blobs.root, 'partial', `${sha256}.${siteId}`);
  }

  /** Size of the stored blob, or undefined when it is not (completely) here. */
  async storedSize(sha256: string): Promise<number | undefined> {
    return sizeOf(this.blobs.pathOf(sha256));
  }

  /**
   * Whether a row the site has references these bytes: an attachment with this sha256 that the
   * cloud routes to the site (shared/sync/routing.ts: the site of the yard of what it is attached
   * to, or every site), or that the site itself made (its HLC origin is the site's id).
   */
  async visibleTo(siteId: string, sha256: string): Promise<boolean> {
    const rows = await this.deps.kysely
      .selectFrom('attachment')
      .select(['refType', 'refId', sql<string>`substr(hlc, 20)`.as('origin')])
      .where('sha256', '=', sha256)
      .execute();
    if (rows.length === 0) return false;
    // The cloud's routing: this service serves sites at the hub only (shared/services.ts).
    const routing = this.deps.syncSide.routing;
    return rows.some(
      (row) => row.origin === siteId || routing.peersFor(this.attachmentEntity, row).includes(siteId),
    );
  }

  /**
   * What the site may know is held for this sha256: the stored blob when its rows reference it,
   * else its own partial upload, else nothing. Without a site (an admin): the stored blob or nothing.
   */
  async held(sha256: string, siteId: string | undefined): Promise<HeldBytes> {
    const stored = await this.storedSize(sha256);
    if (stored !== undefined && (siteId === undefined || (await this.visibleTo(siteId, sha256)))) {
      return { offset: stored, complete: true };
    }
    const partial = siteId === undefined ? undefined : await sizeOf(this.partialPathOf(sha256, siteId));
    return { offset: partial ?? 0, complete: false };
  }

  /**
   * Appends a PATCH body at `offset`. Checks come before any byte is written: the declared length
   * against attachments.maxBytes (413), the offset against the bytes held (409 offset-mismatch).
   * A body cut short keeps what arrived (that is what makes the upload resumable).
   */
  async append(
    sha256: string,
    siteId: string,
    offset: number,
    length: number,
    body: Readable,
  ): Promise<HeldBytes> {
    const { maxBytes } = await this.deps.attachments.limits();
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
    const key = `${siteId}/${sha256}`;
    if (this.writing.has(key)) {
      throw new ConflictError(
        'upload-in-progress',
        'Another upload of these bytes is being received; ask HEAD for the offset and continue later.',
      );
    }
    this.writing.add(key);
    try {
      const held = await this.held(sha256, siteId);
      // Already stored and referenced by this site's rows: nothing to do.
      if (held.complete) return held;
      if (held.offset > length) {
        // A partial longer than the whole can never complete (a client that declared another
        // length); drop it so the upload can start over.
        await rm(this.partialPathOf(sha256, siteId), { force: true });
        held.offset = 0;
      }
      if (held.offset !== offset) {
        throw new ConflictError(
          'offset-mismatch',
          `The cloud holds ${held.offset} bytes of this upload; send from Upload-Offset ${held.offset}.`,
          { offset: held.offset },
        );
      }
      const path = this.partialPathOf(sha256, siteId);
      const written = await this.writePart(path, offset, length, body);
      if (written < length) return { offset: written, complete: false };
      await this.finish(path, sha256, length);
      return { offset: length, complete: true };
    } finally {
      this.writing.delete(key);
    }
  }

  /** Writes the body after `offset`, fsyncs, and answers the new size of the partial file. */
  private async writePart(path: string, offset: number, length: number, body: Readable): Promise<number> {
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
  private async finish(path: string, sha256: string, length: number): Promise<void> {
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
