import type { Role } from '../../common/auth';
import { ownership } from '../scope';
import type { Owner } from './types';

/** The note on records written elsewhere (UI conventions: read-only things say why). */
export const MANAGED_IN_CLOUD = 'Managed in the cloud: change it there. This site keeps a read-only copy.';
export const RECORDED_BY_SITE = "Recorded by the site: change it at the site's own dashboard.";

/**
 * Why a record cannot be changed here, or null when it can: owned by the other side of the link
 * (scope.ts ownership, the server answers 409 otherwise), or a role that may only read.
 */
export function readOnlyReason(owner: Owner, mayEdit: boolean, whoMay = 'an admin'): string | null {
  if (owner === 'cloud' && ownership.value.masterDataReadOnly) return MANAGED_IN_CLOUD;
  if (owner === 'site' && ownership.value.siteRecordsReadOnly) return RECORDED_BY_SITE;
  if (!mayEdit) return `Your role may look these up; changes are made by ${whoMay}.`;
  return null;
}

export type MayFn = (role: Role | undefined) => boolean;
