import type { CoreParts } from '../../core-parts.js';
import type { GateSnapshotResult } from '../cameras/service.js';
import type { MovementActuation } from './actuate.js';
import { movementOut } from './out.js';
import type { Recorded } from './record.js';
import type { MovementCreatedT } from './schema.js';

/**
 * The last step of a gate movement: the movement as the API shows it goes to the event bus
 * (`movement.created`: the open /api/events streams of staff who may see its yard), and the
 * answer adds what the gate did, the units it created and its pictures.
 */
export function publishMovement(
  bus: CoreParts['bus'],
  recorded: Recorded,
  actuation: MovementActuation | null,
  snapshots: GateSnapshotResult[],
): MovementCreatedT {
  const out = movementOut(recorded.movement, actuation?.id ?? null);
  bus.publish({ type: 'movement.created', yardId: out.yardId, data: out });
  return { ...out, actuation, createdUnits: recorded.createdUnits, snapshots };
}
