import { api, call, type Schemas } from '../../common/api/client';
import { ifMatch } from '../records/http';

// What the appointments screens (config, load types, doors) read and write, one function each: the
// components call these, never the API client (the data-layer rule in .dependency-cruiser.cjs).

export type SchedulingConfig = Schemas['SchedulingConfig'];
export type SchedulingConfigPut = Schemas['SchedulingConfigPut'];
export type LoadType = Schemas['LoadType'];
export type LoadTypeCreate = Schemas['LoadTypeCreate'];
export type LoadTypePatch = Schemas['LoadTypePatch'];
export type Location = Schemas['Location'];

/** Door names in natural order (numbers by value), as the booking assigns doors. */
const doorOrder = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** The version the server tags a record with: the ETag its reads and writes carry ("v0": no config yet). */
const versionTag = (version: number) => `"v${version}"`;

/** A yard's scheduling config (version 0 and the defaults when it has none yet). */
export function loadConfig(yardId: string): Promise<SchedulingConfig> {
  return call(api.GET('/api/appointment/config/{yardId}', { params: { path: { yardId } } }));
}

/** Sets the whole config; If-Match with the version read, so a concurrent save is not overwritten. */
export function saveConfig(
  yardId: string,
  version: number,
  body: SchedulingConfigPut,
): Promise<SchedulingConfig> {
  return call(
    api.PUT('/api/appointment/config/{yardId}', {
      params: { path: { yardId } },
      body,
      headers: ifMatch(versionTag(version)),
    }),
  );
}

/** The yard's load types, by name. */
export async function loadLoadTypes(yardId: string): Promise<LoadType[]> {
  const page = await call(api.GET('/api/appointment/load-type', { params: { query: { yardId } } }));
  return [...page.items].sort((a, b) => a.name.localeCompare(b.name));
}

export function createLoadType(body: LoadTypeCreate): Promise<LoadType> {
  return call(api.POST('/api/appointment/load-type', { body }));
}

export function updateLoadType(lt: LoadType, body: LoadTypePatch): Promise<LoadType> {
  return call(
    api.PATCH('/api/appointment/load-type/{id}', {
      params: { path: { id: lt.id } },
      body,
      headers: ifMatch(versionTag(lt.version)),
    }),
  );
}

export async function deleteLoadType(lt: LoadType): Promise<void> {
  await call(
    api.DELETE('/api/appointment/load-type/{id}', {
      params: { path: { id: lt.id } },
      headers: ifMatch(versionTag(lt.version)),
    }),
  );
}

/** The yard's doors (locations of kind door), in door order: Door 2 before Door 10. */
export async function loadDoors(yardId: string): Promise<Location[]> {
  const out: Location[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(
      api.GET('/api/yard/{id}/location', {
        params: { path: { id: yardId }, query: { kind: 'door', limit: 500, ...(cursor ? { cursor } : {}) } },
      }),
    );
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out.sort((a, b) => doorOrder.compare(a.name, b.name));
}
