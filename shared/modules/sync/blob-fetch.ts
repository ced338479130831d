import type { CoreParts } from '../../core-parts.js';
import { AppError } from '../../http/errors.js';
import type { BlobStore } from '../attachments/blob-store.js';
import type { MissingBytes } from '../attachments/missing-bytes.js';
import type { AttachmentRow } from '../attachments/service.js';
import { CloudBlobClient, CloudBlobError } from './blob-client.js';
import { BlobUploadRepo } from './blob-upload-repo.js';

/** What a client is told to wait before asking again for bytes that are not uploaded yet. */
const NOT_UPLOADED_RETRY_SEC = 60;

/** The cloud's answer: the site that stored the bytes has not uploaded them yet (503, Retry-After). */
export const awaitSiteUpload: MissingBytes = {
  ensureLocal: async (row) => {
    throw notUploaded(row, 'the site that stored it');
  },
};

export type BlobFetcherDeps = Pick<CoreParts, 'config' | 'kysely' | 'hlc' | 'clock'>;

/** A linked edge's way: download the bytes from the cloud (nothing to do without its URL). */
export class BlobFetcher implements MissingBytes {
  private readonly inFlight = new Map<string, Promise<void>>();
  private client: CloudBlobClient | undefined;

  constructor(private readonly deps: BlobFetcherDeps) {}

  async ensureLocal(row: AttachmentRow, blobs: BlobStore): Promise<void> {
    this.client ??= CloudBlobClient.fromConfig(this.deps.config);
    const client = this.client;
    if (!client) return;
    // Two readers of the same missing bytes share one download.
    let pending = this.inFlight.get(row.sha256);
    if (!pending) {
      pending = this.download(client, row, blobs).finally(() => this.inFlight.delete(row.sha256));
      this.inFlight.set(row.sha256, pending);
    }
    await pending;
  }

  private async download(client: CloudBlobClient, row: AttachmentRow, blobs: BlobStore): Promise<void> {
    try {
      await client.download(blobs, row.sha256, row.size);
    } catch (err) {
      throw err instanceof CloudBlobError ? toProblem(err, row) : err;
    }
    // The cloud holds these bytes: nothing for this edge's uploader to send.
    await new BlobUploadRepo(this.deps.kysely, this.deps.hlc.origin).markUploaded(
      row.sha256,
      this.deps.clock.now(),
    );
  }
}

function notUploaded(row: AttachmentRow, who: string): AppError {
  return new AppError(
    503,
    'attachment-not-uploaded',
    'Attachment not uploaded yet',
    `The bytes of attachment ${row.id} have not reached the cloud yet: ${who} uploads them when it is online. Try again later.`,
    undefined,
    { retryAfterSec: NOT_UPLOADED_RETRY_SEC },
  );
}

function toProblem(err: CloudBlobError, row: AttachmentRow): AppError {
  const what = `the bytes of attachment ${row.id} from the cloud`;
  switch (err.kind) {
    case 'unreachable':
      return new AppError(
        502,
        'cloud-unreachable',
        'Cloud unreachable',
        `Could not fetch ${what}: ${err.message}`,
      );
    case 'timeout':
      return new AppError(
        504,
        'cloud-unreachable',
        'Cloud unreachable',
        `Could not fetch ${what}: ${err.message}`,
      );
    case 'refused':
      return new AppError(
        502,
        'cloud-auth-failed',
        'Cloud refused this site',
        `The cloud refused this site's credentials (mqtt.username / mqtt.password) when fetching ${what}.`,
      );
    case 'aborted':
      return new AppError(503, 'cloud-unreachable', 'Cloud unreachable', `Stopped fetching ${what}.`);
    default:
      if (err.status === 404) return notUploaded(row, 'the site that stored it');
      return new AppError(
        502,
        'cloud-bad-response',
        'Bad answer from the cloud',
        `Fetching ${what}: ${err.message}`,
      );
  }
}
