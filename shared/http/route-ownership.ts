import { SYNCED_ENTITIES, type SyncedEntity } from '../sync/entities.js';
import { ownerDependsOnRow, ownerOf } from '../sync/ownership.js';

/**
 * Which write routes touch records with an owner (docs/domain.md "Records and who owns them"), so the registrar can
 * document their 409 `cloud-owned` / `edge-owned` once, here, instead of on every route. The codes
 * follow from the entities' owners (shared/sync/ownership.ts); only the route -> entities mapping
 * is kept by hand. A route whose write also changes another owned record lists that one too: a
 * gate's camera list binds cameras (a provider camera is the cloud's), and binding a camera to a
 * gate edits the gate's list (the edge's).
 */
const OWNED_ROUTES: ReadonlyArray<readonly [paths: readonly string[], entities: readonly string[]]> = [
  [['/api/yard', '/api/yard/{id}'], ['yard']],
  [['/api/yard/{id}/location', '/api/yard/{id}/location/{locationId}'], ['location']],
  [
    ['/api/yard/{id}/gate', '/api/yard/{id}/gate/{gateId}'],
    ['gate', 'camera'],
  ],
  [['/api/carrier', '/api/carrier/{id}'], ['carrier']],
  [['/api/user', '/api/user/{id}'], ['user']],
  [['/api/auth/api-key', '/api/auth/api-key/{id}'], ['api_key']],
  [['/api/integration', '/api/integration/{id}'], ['integration']],
  [
    ['/api/camera', '/api/camera/{id}'],
    ['camera', 'gate'],
  ],
  [['/api/settings'], ['setting']],
  [['/api/movement'], ['movement']],
  [['/api/truck/{truckId}/inspections'], ['truck_inspection']],
  [
    [
      '/api/yard-task/driver/session/start',
      '/api/yard-task/driver/session/end',
      '/api/yard-task/driver/last-check',
    ],
    ['driver_session'],
  ],
  [['/api/yard-task/driver/session/locations'], ['session_location']],
  [['/api/yard-task/driver/notification-token'], ['push_token']],
];

/** Tables whose owner depends on the row (ownership.ts): which of their records each side owns. */
const PER_ROW_LABELS: Record<string, { cloud: string; edge: string }> = {
  camera: { cloud: 'provider camera', edge: 'ONVIF camera' },
  setting: { cloud: 'global setting', edge: 'site setting' },
};

const WRITE_METHODS: ReadonlySet<string> = new Set(['post', 'put', 'patch', 'delete']);

export type OwnershipCode = 'cloud-owned' | 'edge-owned';

export interface RouteOwnership {
  /** Synced entities the route writes that have an owner. */
  entities: string[];
  /** The 409 codes the route can answer for them. */
  codes: OwnershipCode[];
  /** Text for the 409 response of the OpenAPI document. */
  text: string;
}

/** The ownership refusals a route can answer, or undefined for a read or a route of unowned records. */
export function routeOwnership(method: string, path: string): RouteOwnership | undefined {
  if (!WRITE_METHODS.has(method)) return undefined;
  const entry = OWNED_ROUTES.find(([paths]) => paths.includes(path));
  if (!entry) return undefined;
  const cloudOwned: string[] = [];
  const edgeOwned: string[] = [];
  for (const name of entry[1]) {
    const entity = entityNamed(name);
    const label = name === 'api_key' ? 'API key' : name.replace(/_/g, ' ');
    if (ownerDependsOnRow(entity)) {
      cloudOwned.push(PER_ROW_LABELS[name]?.cloud ?? label);
      edgeOwned.push(PER_ROW_LABELS[name]?.edge ?? label);
      continue;
    }
    const owner = ownerOf(entity, undefined);
    if (owner === 'cloud') cloudOwned.push(label);
    if (owner === 'edge') edgeOwned.push(label);
  }
  const codes: OwnershipCode[] = [];
  const parts: string[] = [];
  if (cloudOwned.length > 0) {
    codes.push('cloud-owned');
    parts.push(
      `\`cloud-owned\` at an edge linked to a cloud: ${list(cloudOwned)} records are written in the cloud only`,
    );
  }
  if (edgeOwned.length > 0) {
    codes.push('edge-owned');
    parts.push(
      `\`edge-owned\` at the cloud: ${list(edgeOwned)} records are written at their site's edge only`,
    );
  }
  return { entities: [...entry[1]], codes, text: `${parts.join('; ')} (nothing is changed).` };
}

/** The route paths the table names, for a test that each is still a registered write route. */
export function ownedRoutePaths(): string[] {
  return OWNED_ROUTES.flatMap(([paths]) => [...paths]);
}

function entityNamed(name: string): SyncedEntity {
  const entity = SYNCED_ENTITIES.find((e) => e.entity === name);
  if (!entity) throw new Error(`route-ownership names ${name}, which is not a synced entity`);
  return entity;
}

function list(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
