import type { Schemas } from '../../common/api/client';
import { yardDateTime } from '../../common/time';

export type SiteStatus = Schemas['SiteSyncStatus'];

/**
 * At the cloud a gate is opened by its site's edge: when the site is not connected, the office is
 * told before it tries (the API would answer 504 site-offline). Null when nothing needs saying.
 */
export function siteLinkWarning(site: SiteStatus | undefined, timeZone: string): string | null {
  if (!site) return null;
  if (site.link === 'offline') {
    const since = site.linkSince ? ` since ${yardDateTime(site.linkSince, timeZone)}` : '';
    return `The site ${site.name} is offline${since}: its gates cannot be opened from here until it is back online. Open them at the gate house.`;
  }
  if (site.link === 'never') {
    return `The site ${site.name} has not connected to the cloud yet: its gates cannot be opened from here.`;
  }
  return null;
}
