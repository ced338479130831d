import { api, call, type Schemas } from '../../common/api/client';
import { compactCode, normalText } from '../../common/type-ahead-rank';
import { loadTypes, yardDay } from '../appointments/data';
import type { Known } from './from-appointment';
import { driverPick } from './model';
import { searchDrivers, searchTrailers, searchTrucks } from './search';

/**
 * The known records the booking's numbers name, so the form shows them as known (in yard, blocked)
 * and the movement links them by id. Each lookup that fails or finds nothing leaves the typed text.
 */
export async function knownUnits(a: Schemas['Appointment'], signal: AbortSignal): Promise<Known> {
  const none = <T>(p: Promise<T>) => p.catch(() => null);
  const same = (x: string | null | undefined, y: string | null | undefined) =>
    Boolean(x && y && compactCode(x) === compactCode(y));
  const [carrier, trailers, trucks, drivers, types, doors] = await Promise.all([
    none(call(api.GET('/api/carrier/{id}', { params: { path: { id: a.carrierId } }, signal }))),
    a.trailerNumber ? none(searchTrailers(a.trailerNumber, signal)) : null,
    a.truckPlate ? none(searchTrucks(a.truckPlate, signal)) : null,
    a.driverPhone || a.driverName ? none(searchDrivers(a.driverPhone ?? a.driverName ?? '', signal)) : null,
    none(loadTypes(a.yardId)),
    none(
      call(
        api.GET('/api/yard/{id}/location', {
          params: { path: { id: a.yardId }, query: { kind: 'door', free: true, limit: 500 } },
          signal,
        }),
      ),
    ),
  ]);
  // A number two carriers share: the booked carrier's unit first.
  const ours = <T extends { carrierId: string | null }>(items: T[]) =>
    items.find((i) => i.carrierId === a.carrierId) ?? items[0];
  const trailer = ours((trailers ?? []).filter((t) => same(t.number, a.trailerNumber)));
  const truck = ours((trucks ?? []).filter((t) => same(t.plate, a.truckPlate)));
  const driver = ours(
    (drivers ?? []).filter(
      (d) =>
        (a.driverPhone && same(d.phone, a.driverPhone)) ||
        (a.driverName && normalText(`${d.firstName} ${d.lastName}`) === normalText(a.driverName)),
    ),
  );
  return {
    carrier: carrier
      ? { id: carrier.id, name: carrier.name, scac: carrier.scac, status: carrier.status }
      : null,
    trailer: trailer
      ? { id: trailer.id, number: trailer.number, carrierId: trailer.carrierId, inYard: trailer.inYard }
      : null,
    truck: truck
      ? { id: truck.id, plate: truck.plate ?? '', carrierId: truck.carrierId, inYard: truck.inYard }
      : null,
    driver: driver ? driverPick(driver) : null,
    direction: types?.get(a.loadTypeId)?.direction ?? null,
    doorFree: Boolean(doors?.items.some((d) => d.id === a.doorId)),
  };
}

/** The statuses a clerk may still pick at the gate (a completed one cannot be used again). */
const PICKABLE = 'scheduled,arrived,docked,no_show';

/**
 * Today's appointments of the yard whose ref (PO / BOL number) or trailer number is what the clerk
 * typed (docs/domain.md "At the gate"; the API matches each exactly, case aside). A text longer
 * than any ref matches nothing without asking.
 */
export async function searchToday(
  yardId: string,
  text: string,
  timeZone: string,
  signal: AbortSignal,
): Promise<Schemas['Appointment'][]> {
  if (text.length > 40) return [];
  const { from, to } = yardDay(timeZone);
  const page = await call(
    api.GET('/api/appointment', {
      params: {
        query: {
          yardId,
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          q: text,
          status: PICKABLE,
          limit: 50,
        },
      },
      signal,
    }),
  );
  return page.items;
}
