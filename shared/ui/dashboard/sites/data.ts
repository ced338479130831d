import { api, call, type Schemas } from '../../common/api/client';

// What the sites and gates screens read and write (the components call these, never the client).

export type SyncStatus = Schemas['SyncStatus'];
export type HardwareStatus = Schemas['HardwareStatus'];

/** The link of this site (edge) or of every site (cloud). */
export function loadSyncStatus(): Promise<SyncStatus> {
  return call(api.GET('/api/sync/status'));
}

/** This site's gates with their relay states. */
export function loadHardwareStatus(): Promise<HardwareStatus> {
  return call(api.GET('/api/hardware/status'));
}

/** A yard's gates (a yard has a handful: one page). */
export async function loadYardGates(yardId: string) {
  const page = await call(
    api.GET('/api/yard/{id}/gate', { params: { path: { id: yardId }, query: { limit: 200 } } }),
  );
  return page.items;
}

/** Applies a site's dead letters again (`peer`: the site, at the cloud); how many were retried and applied. */
export function retryDeadLetters(peer: string | undefined) {
  return call(api.POST('/api/sync/dead-letter/retry', { body: peer ? { peer } : {} }));
}
