import { toIso } from '../../clock.js';
import type { RelayBinding } from '../../hardware.js';
import type { GateActuationRow } from './repo.js';
import type { GateActuationOutT } from './schema.js';

/** How stored hardware rows read: a gate's relay binding, an actuation record as the API shows it. */

/** The gate's relay binding, or undefined for a manual gate (or one whose binding cannot be read). */
export function parseRelay(text: string | null): RelayBinding | undefined {
  if (!text) return undefined;
  try {
    const relay = JSON.parse(text) as Partial<RelayBinding> | null;
    if (!relay || typeof relay.driver !== 'string' || typeof relay.channel !== 'number') return undefined;
    return {
      driver: relay.driver,
      channel: relay.channel,
      pulseMs: typeof relay.pulseMs === 'number' ? relay.pulseMs : 500,
      activeLow: relay.activeLow === true,
      ...(typeof relay.device === 'string' ? { device: relay.device } : {}),
      ...(typeof relay.baudRate === 'number' ? { baudRate: relay.baudRate } : {}),
      ...(typeof relay.unitId === 'number' ? { unitId: relay.unitId } : {}),
    };
  } catch {
    return undefined;
  }
}

export function actuationOut(row: GateActuationRow): GateActuationOutT {
  return {
    id: row.id,
    gateId: row.gateId,
    yardId: row.yardId,
    requestedBy: row.requestedBy,
    requestedVia: row.requestedVia,
    reason: row.reason,
    at: toIso(row.at),
    result: row.result,
    durationMs: row.durationMs,
    error: row.error,
    movementId: row.movementId,
    createdAt: toIso(row.createdAt),
  };
}
