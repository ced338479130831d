import type { Principal } from '../../auth/principal.js';
import type { AppointmentService } from '../appointments/service.js';
import type { CarrierService } from '../carriers/service.js';
import type { DriverService } from '../drivers/service.js';
import type { MovementService } from '../movements/service.js';
import type { TrailerService } from '../trailers/service.js';
import type { TruckService } from '../trucks/service.js';
import type { YardService } from '../yards/service.js';
import type { AppointmentPlaceT, SearchKindT } from './schema.js';

/**
 * The sources the search across kinds reads (docs/api.md "Search"), each through its module's
 * service, so each keeps its own rules (yard scope, the driver ranking, the appointment list).
 */

export type SearchDeps = {
  trailers: Pick<TrailerService, 'search'>;
  trucks: Pick<TruckService, 'search'>;
  drivers: Pick<DriverService, 'search'>;
  carriers: Pick<CarrierService, 'search' | 'getRow'>;
  /** Units' latest visits: since when they are in, or when and through which gate they left. */
  movements: Pick<MovementService, 'latestVisits'>;
  /** Names of yards, spots and gates. */
  yards: Pick<YardService, 'getRow' | 'getLocationRow' | 'getGateRow'>;
  /** Appointments by code or ref, in the caller's yards (the list's own scope rule). */
  appointments: Pick<AppointmentService, 'list'>;
};

/** A record one source found: 3 the text is its label (or a key field), 2 starts it, 1 is inside it. */
export interface Found {
  kind: SearchKindT;
  id: string;
  label: string;
  rank: 1 | 2 | 3;
  carrierId: string | null;
  /** Said instead of the carrier (a carrier's SCAC, a yard driver). */
  secondary?: string | null;
  /** Trailers and trucks: where the unit's record places it. */
  unit?: {
    kind: 'trailer' | 'truck';
    yardId: string | null;
    locationId: string | null;
    arrivedAt: number | null;
  };
  /** Appointments: where and when it is booked (the yard named with the other names). */
  appointment?: Omit<AppointmentPlaceT, 'yard'> & { yardId: string };
}

/**
 * One kind of record the search reads, through that kind's own service (each keeps its rules:
 * yard scope for units, the driver ranking, the appointments' list).
 */
export interface SearchSource {
  kind: SearchKindT;
  find(principal: Principal, q: string, limit: number): Promise<Found[]>;
}

/** The sources of the kinds there are today, each through its module's service. */
export function unitAndPartySources(deps: SearchDeps): SearchSource[] {
  return [
    {
      kind: 'trailer',
      find: async (principal, q, limit) =>
        (await deps.trailers.search(principal, q, limit)).map(({ rank, row }) => ({
          kind: 'trailer' as const,
          id: row.id,
          label: row.number,
          rank,
          carrierId: row.carrierId,
          unit: {
            kind: 'trailer' as const,
            yardId: row.yardId,
            locationId: row.locationId,
            arrivedAt: row.arrivedAt,
          },
        })),
    },
    {
      kind: 'truck',
      find: async (principal, q, limit) =>
        (await deps.trucks.search(principal, q, limit)).map(({ rank, row }) => ({
          kind: 'truck' as const,
          id: row.id,
          label: [row.plate, row.unitNumber && `unit ${row.unitNumber}`].filter(Boolean).join(', '),
          rank,
          carrierId: row.carrierId,
          unit: { kind: 'truck' as const, yardId: row.yardId, locationId: null, arrivedAt: null },
        })),
    },
    {
      kind: 'driver',
      // Drivers belong to no yard: every staff member finds them, as in the driver list.
      find: async (_principal, q, limit) =>
        (await deps.drivers.search(q, limit)).items.map(({ score, driver }) => ({
          kind: 'driver' as const,
          id: driver.id,
          label: `${driver.firstName} ${driver.lastName}`,
          rank: Math.min(3, Math.max(1, score)) as 1 | 2 | 3,
          carrierId: driver.carrierId,
          ...(driver.kind === 'yard' ? { secondary: 'Yard driver' } : {}),
        })),
    },
    {
      kind: 'carrier',
      find: async (_principal, q, limit) =>
        (await deps.carriers.search(q, limit)).map(({ rank, row }) => ({
          kind: 'carrier' as const,
          id: row.id,
          label: row.name,
          rank,
          carrierId: null,
          secondary: row.scac,
        })),
    },
  ];
}

/** Appointment codes are 8 characters; a code read out with a space or dash still finds it. */
const CODE_LENGTH = 8;
/** The longest ref an appointment holds (its schema's): a longer text is none. */
const REF_MAX = 40;

/**
 * Appointments whose code or one of whose refs (PO / BOL number) is the text, any case
 * (docs/api.md "Search"): exact matches only, as a gate pass or a carrier's PO is read out; the
 * latest booking first. The appointment list's own `q` and yard scope do the finding; it also
 * matches trailer numbers, which this search leaves to the trailers.
 */
export function appointmentSource(deps: SearchDeps): SearchSource {
  return {
    kind: 'appointment',
    find: async (principal, q, limit) => {
      if (q.length > REF_MAX) return [];
      const code = q.replace(/[\s-]/g, '').toUpperCase();
      const texts = code !== q.toUpperCase() && code.length === CODE_LENGTH ? [q, code] : [q];
      const pages = await Promise.all(
        texts.map((text) => deps.appointments.list(principal, { q: text, limit: 50 })),
      );
      const ref = q.toLowerCase();
      const seen = new Set<string>();
      return pages
        .flatMap((p) => p.items)
        .filter(
          (a) =>
            (a.code === code || a.refs.some((r) => r.toLowerCase() === ref)) &&
            !seen.has(a.id) &&
            seen.add(a.id),
        )
        .sort((a, b) => Date.parse(b.startAt) - Date.parse(a.startAt))
        .slice(0, limit)
        .map((a) => ({
          kind: 'appointment' as const,
          id: a.id,
          label: a.code,
          rank: 3 as const,
          carrierId: a.carrierId,
          appointment: {
            yardId: a.yardId,
            startAt: a.startAt,
            door: { id: a.doorId, name: a.doorName },
            status: a.status,
            refs: a.refs,
          },
        }));
    },
  };
}
