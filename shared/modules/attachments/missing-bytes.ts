import type { BlobStore } from './blob-store.js';
import type { AttachmentRow } from './repo.js';

/**
 * Bytes of an attachment whose metadata is here but whose bytes are not (docs/sync.md "Attachment bytes":
 * fetched on demand). A standalone edge holds all its own (nothingToFetch). At a linked edge they come from the cloud (BlobFetcher); at the cloud they can
 * only come from the site that stored them, which uploads them when it is online (awaitSiteUpload).
 * Which one a side uses is plugged at start (shared/role-parts.ts); the last two live in
 * modules/sync/blob-fetch.ts.
 */
export interface MissingBytes {
  /**
   * Makes the bytes of `row` local in `blobs`, or throws what the client should be told. Resolves
   * without doing anything where there is nowhere to fetch from: the caller's 404 stands.
   */
  ensureLocal(row: AttachmentRow, blobs: BlobStore): Promise<void>;
}

/** A standalone edge: every attachment's bytes were stored here, there is nowhere else to ask. */
export const nothingToFetch: MissingBytes = {
  ensureLocal: async () => {},
};
