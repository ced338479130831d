import { api, call, type Schemas } from '../../common/api/client';
import { allPages } from '../../common/api/pages';
import { ProblemError } from '../../common/api/problem';
import { problemText } from '../../common/api/problem-text';
import type { Draft } from './drafts';
import type { Location } from './plan';

export interface MapData {
  locations: Location[];
  trailers: Schemas['Trailer'][];
  carriers: Schemas['Carrier'][];
}

const limit = 500;

/** The yard's locations and the trailers in it (the gate inventory's API), with their carriers. */
export async function loadMap(yardId: string): Promise<MapData> {
  const [locations, trailers, carriers] = await Promise.all([
    allPages((cursor) =>
      call(
        api.GET('/api/yard/{id}/location', { params: { path: { id: yardId }, query: { limit, cursor } } }),
      ),
    ),
    allPages((cursor) =>
      call(api.GET('/api/trailer', { params: { query: { yardId, inYard: true, limit, cursor } } })),
    ),
    allPages((cursor) => call(api.GET('/api/carrier', { params: { query: { limit, cursor } } }))),
  ]);
  return { locations, trailers, carriers };
}

export interface SaveFailure {
  id: string;
  name: string;
  message: string;
  /** Someone else changed the location meanwhile (412): their version stands. */
  stale: boolean;
}

/** Writes each changed position (PATCH with If-Match), one after the other; reports what failed. */
export async function saveDrafts(
  yardId: string,
  changes: Array<[Location, Draft]>,
): Promise<{ saved: string[]; failures: SaveFailure[] }> {
  const saved: string[] = [];
  const failures: SaveFailure[] = [];
  for (const [location, draft] of changes) {
    try {
      await call(
        api.PATCH('/api/yard/{id}/location/{locationId}', {
          params: {
            path: { id: yardId, locationId: location.id },
            header: { 'If-Match': `"v${draft.version}"` },
          },
          body: { plan: draft.plan },
        }),
      );
      saved.push(location.id);
    } catch (err) {
      const stale = err instanceof ProblemError && err.status === 412;
      failures.push({
        id: location.id,
        name: location.name,
        stale,
        message: stale
          ? `${location.name} was changed by someone else while you edited: their version is shown now. Place it again if it should move.`
          : `${location.name} was not saved: ${problemText(err)}`,
      });
    }
  }
  return { saved, failures };
}
