import { api, call, type Schemas } from './api/client';

/** What the common components read: the site's link to the cloud and stored pictures. */

/** The site's link to the cloud and the changes waiting to be sent. */
export function loadSyncStatus(): Promise<Schemas['SyncStatus']> {
  return call(api.GET('/api/sync/status'));
}

/** A stored picture (an attachment: a gate camera's snapshot of a movement, a damage photo). */
export function attachmentBlob(id: string): Promise<Blob> {
  return call(
    api.GET('/api/attachment/{id}', { params: { path: { id } }, parseAs: 'blob' }),
  ) as Promise<Blob>;
}
