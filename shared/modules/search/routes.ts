import { STAFF } from '../../auth/principal.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { SearchOut, SearchQuery } from './schema.js';
import type { SearchService } from './service.js';

export function registerSearchRoutes(r: RouteRegistrar, { search }: { search: SearchService }): void {
  r.add({
    method: 'get',
    path: '/api/search',
    tag: 'Search',
    summary:
      'Find a trailer, truck, driver, carrier or appointment, with where a unit is and since when, and where and when an appointment is booked',
    description:
      'One ranked page over every kind: exact matches first, then those starting with q, then those ' +
      'containing it (ASCII case ignored; spaces ignored in trailer numbers). Trailers and trucks in ' +
      'yards outside the caller’s yard scope are left out; drivers and carriers are found as their lists ' +
      'show them. Appointments are found by their code or one of their refs, whole (case, and a code’s ' +
      'spaces and dashes, ignored), in the caller’s yards, the latest first. nextCursor is always null: ' +
      'narrow q to find others.',
    access: STAFF,
    query: SearchQuery,
    response: { schema: SearchOut },
    handler: ({ query, principal }) => search.search(principal, query.q, query.limit),
  });
}
