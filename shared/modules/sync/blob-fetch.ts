import type { Core } from '../../core.js';
import { AppError } from '../../http/errors.js';
import type { AttachmentRow } from '../attachments/repo.js';
import { CloudBlobClient, CloudBlobError } from './blob-client.js';
import { BlobUploadRepo } from './blob-upload-repo.js';

/** What a client is told to wait before asking again for bytes that are not uploaded yet. */
const NOT_UPLOADED_RETRY_SEC = 60;

/**
 * Bytes of an attachment whose metadata is here but whose bytes are not (docs/sync.md "Attachment bytes":
 * fetched on demand). At a linked edge they come from the cloud; at the cloud they can only come from the
 * site that stored them, which uploads them when it is online.
 */
export class BlobFetcher {
  private readonly inFlight = new Map<string, Promise<void>>();
  private client: CloudBlobClient | undefined;

  constructor(private readonly core: Core) {}

  /**
   * Makes the bytes of `row` local, or throws what the client should be told. Resolves without
   * doing anything where there is nowhere to fetch from (a standalone edge): the caller's 404 stands.
   */
  async ensureLocal(row: AttachmentRow): Promise<void> {
    if (this.core.config.role === 'cloud') throw notUploaded(row, 'the site that stored it');
    this.client ??= CloudBlobClient.fromConfig(this.core.config);
    const client = this.client;
    if (!client) return;
    // Two readers of the same missing bytes share one download.
    let pending = this.inFlight.get(row.sha256);
    if (!pending) {
      pending = this.download(client, row).finally(() => this.inFlight.delete(row.sha256));
      this.inFlight.set(row.sha256, pending);
    }
    await pending;
  }

  private async download(client: CloudBlobClient, row: AttachmentRow): Promise<void> {
    try {
      await client.download(this.core.services.attachments.blobs, row.sha256, row.size);
    } catch (err) {
      throw err instanceof CloudBlobError ? toProblem(err, row) : err;
    }
    // The cloud holds these bytes: nothing for this edge's uploader to send.
    await new BlobUploadRepo(this.core.kysely, this.core.hlc.origin).markUploaded(
      row.sha256,
      this.core.clock.now(),
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
