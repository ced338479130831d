import { type Location, type Plan, samePlan } from './plan';

/**
 * An unsaved position: the new place (null: off the plan) and the version of the location when the
 * editing of it began, sent as If-Match so a change made meanwhile by someone else is not overwritten.
 */
export interface Draft {
  plan: Plan | null;
  version: number;
}

/** The drafts that differ from what is stored. */
export function changedDrafts(drafts: Map<string, Draft>, locations: Location[]): Array<[Location, Draft]> {
  const byId = new Map(locations.map((l) => [l.id, l]));
  const out: Array<[Location, Draft]> = [];
  for (const [id, draft] of drafts) {
    const location = byId.get(id);
    if (location && !samePlan(location.plan, draft.plan)) out.push([location, draft]);
  }
  return out;
}
