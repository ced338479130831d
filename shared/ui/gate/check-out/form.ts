import type { Schemas } from '../../common/api/client';
import { unitKey } from '../../common/inventory/rows';
import { checkSeal, needsAcknowledgement, sealNote } from './seal';

type Trailer = Schemas['Trailer'];
type Truck = Schemas['Truck'];
export type MovementCreate = Schemas['MovementCreate'];

/** A unit in the yard the clerk can check out: a trailer (with its seal) or a truck on its own. */
export type YardUnit =
  | { kind: 'trailer'; id: string; label: string; detail: string; trailer: Trailer }
  | { kind: 'truck'; id: string; label: string; detail: string; truck: Truck };

/** The units matching what was typed (number or plate; case, spaces, dashes ignored), best first. */
export function matchUnits(units: YardUnit[], typed: string, max = 8): YardUnit[] {
  const key = unitKey(typed);
  if (!key) return units.slice(0, max);
  const scored = units
    .map((u) => {
      const k = unitKey(u.label);
      const at = k.indexOf(key);
      return { u, score: k === key ? 0 : at === 0 ? 1 : at > 0 ? 2 : -1 };
    })
    .filter((s) => s.score >= 0);
  scored.sort((a, b) => a.score - b.score || a.u.label.localeCompare(b.u.label));
  return scored.slice(0, max).map((s) => s.u);
}

export interface CheckOutForm {
  yardId: string;
  gateId: string;
  unit: YardUnit;
  /** The plate of the truck that pulls the trailer out (optional). */
  truckPlate: string;
  seal: string;
  /** The clerk ticked "check out anyway" under a seal warning. */
  acknowledged: boolean;
  notes: string;
}

/**
 * The movement to record, or why not yet: a seal difference that is not acknowledged stops here,
 * before anything is sent, so nothing is recorded until the clerk has seen the warning.
 */
export function checkOutBody(f: CheckOutForm): { body: MovementCreate } | { blocked: 'seal' } {
  const recorded = f.unit.kind === 'trailer' ? f.unit.trailer.sealNumber : null;
  const check = f.unit.kind === 'trailer' ? checkSeal(recorded, f.seal) : 'none';
  if (needsAcknowledgement(check) && !f.acknowledged) return { blocked: 'seal' };
  const note = [sealNote(recorded, f.seal, check), f.notes.trim()].filter(Boolean).join(' ');
  const plate = f.truckPlate.trim();
  // A matching seal is recorded as it was recorded before ("sl 4711" read at the gate is SL-4711).
  const seal = check === 'match' ? (recorded ?? '') : f.seal.trim();
  const body: MovementCreate = {
    yardId: f.yardId,
    gateId: f.gateId,
    direction: 'out',
    ...(f.unit.kind === 'trailer' ? { trailer: { id: f.unit.id } } : { truck: { id: f.unit.id } }),
    ...(f.unit.kind === 'trailer' && plate ? { truck: { plate } } : {}),
    ...(seal && f.unit.kind === 'trailer' ? { sealNumber: seal } : {}),
    ...(note ? { notes: note } : {}),
    actuate: true,
    snapshot: true,
  };
  return { body };
}
