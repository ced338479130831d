import type { Schemas } from '../../common/api/client';
import { LOAD_LABEL } from '../../common/inventory/labels';
import { carrierLabel } from '../../common/inventory/rows';
import type { YardPicture } from '../inventory/data';
import type { YardUnit } from './form';

/** The units a clerk can check out of the yard: its trailers, then the trucks in it. */
export function yardUnits(picture: YardPicture, trucks: Schemas['Truck'][]): YardUnit[] {
  const carrier = (id: string | null) => carrierLabel(picture.carriers.find((c) => c.id === id));
  const place = (id: string | null) => picture.locations.find((l) => l.id === id)?.name;
  return [
    ...picture.trailers.map(
      (t): YardUnit => ({
        kind: 'trailer',
        id: t.id,
        label: t.number,
        detail: [carrier(t.carrierId), place(t.locationId) ?? 'no spot', LOAD_LABEL[t.loadStatus]]
          .filter(Boolean)
          .join(' · '),
        trailer: t,
      }),
    ),
    ...trucks.map(
      (k): YardUnit => ({
        kind: 'truck',
        id: k.id,
        label: k.plate ?? k.unitNumber ?? k.id,
        detail: carrier(k.carrierId),
        truck: k,
      }),
    ),
  ];
}

/** Where a field error of the movement shows: the server's path, or a problem code about a field. */
export function fieldOf(path: string, code: string, unit?: unknown): string {
  if (code === 'gate-direction') return 'gateId';
  if (code === 'not-in-yard' && unit === 'truck') return 'truck.plate';
  if (code === 'not-in-yard') return 'unit';
  return path;
}
