import type { SyncedEntity } from './entities.js';

/** Which side may write a record when an edge is linked to a cloud (SYNC.md, DOMAIN.md). */
export type Owner = 'edge' | 'cloud' | 'both';

/**
 * The owner of one row. Per table (entities.ts) except where DOMAIN.md splits a table:
 * - camera: an ONVIF camera belongs to its edge (only the edge reaches it), a provider camera to the cloud;
 * - setting: a global setting belongs to the cloud, a site setting to the edge;
 * - task_event and attachment: whoever made them ("creator, immutable"); both sides may insert.
 * Shared records (tasks, trucks, trailers, drivers) are written on both sides and merged per field.
 */
export function ownerOf(entity: SyncedEntity, row: Record<string, unknown> | undefined): Owner {
  switch (entity.entity) {
    case 'camera':
      return row?.source === 'provider' ? 'cloud' : 'edge';
    case 'setting':
      return row?.scope === 'site' ? 'edge' : 'cloud';
    case 'task_event':
    case 'attachment':
      return 'both';
  }
  switch (entity.ownership) {
    case 'cloud':
      return 'cloud';
    case 'shared':
      return 'both';
    default:
      return 'edge';
  }
}
