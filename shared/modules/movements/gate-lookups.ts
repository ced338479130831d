import { sql } from 'kysely';
import { prepareQuery } from '../../db/prepared.js';

// The lookups of every gate movement, compiled once (see shared/db/prepared.ts).
export const yardById = prepareQuery((db, id: string) =>
  db.selectFrom('yard').select(['id', 'timeZone']).where('id', '=', id),
);
export const gateById = prepareQuery((db, id: string) =>
  db.selectFrom('gate').selectAll().where('id', '=', id),
);
export const locationById = prepareQuery((db, id: string) =>
  db.selectFrom('location').select(['id', 'yardId']).where('id', '=', id),
);
export const carrierById = prepareQuery((db, id: string) =>
  db.selectFrom('carrier').select(['id', 'status']).where('id', '=', id),
);
export const driverById = prepareQuery((db, id: string) =>
  db.selectFrom('driver').selectAll().where('id', '=', id),
);
export const movementById = prepareQuery((db, id: string) =>
  db.selectFrom('movement').selectAll().where('id', '=', id),
);
export const trailerById = prepareQuery((db, id: string) =>
  db.selectFrom('trailer').selectAll().where('id', '=', id),
);
export const truckById = prepareQuery((db, id: string) =>
  db.selectFrom('truck').selectAll().where('id', '=', id),
);
export const trailersByLowerNumber = prepareQuery((db, lowerNumber: string) =>
  db
    .selectFrom('trailer')
    .selectAll()
    .where(sql<string>`lower(number)`, '=', lowerNumber)
    .orderBy('id')
    .limit(10),
);
export const trailersByLowerNumberOfCarrier = prepareQuery((db, lowerNumber: string, carrierId: string) =>
  db
    .selectFrom('trailer')
    .selectAll()
    .where(sql<string>`lower(number)`, '=', lowerNumber)
    .where('carrierId', '=', carrierId)
    .orderBy('id')
    .limit(10),
);
export const trucksByPlateOnly = prepareQuery((db, plate: string) =>
  db.selectFrom('truck').selectAll().where('plate', '=', plate).orderBy('id').limit(10),
);
export const trucksByPlateAndRegion = prepareQuery((db, plate: string, region: string) =>
  db
    .selectFrom('truck')
    .selectAll()
    .where('plate', '=', plate)
    .where('plateRegion', '=', region)
    .orderBy('id')
    .limit(10),
);

export const insertOpenVisit = prepareQuery(
  (
    db,
    id: string,
    yardId: string,
    unitKind: 'trailer' | 'truck',
    trailerId: string | null,
    truckId: string | null,
    carrierId: string | null,
    inMovementId: string,
    inAt: number,
  ) =>
    db.insertInto('visit').values({
      id,
      yardId,
      unitKind,
      trailerId,
      truckId,
      carrierId,
      inMovementId,
      inAt,
      outMovementId: null,
      outAt: null,
    }),
);
export const closeTrailerVisits = prepareQuery(
  (db, outMovementId: string | null, outAt: number, trailerId: string) =>
    db
      .updateTable('visit')
      .set({ outMovementId, outAt })
      .where('outAt', 'is', null)
      .where('trailerId', '=', trailerId)
      .where('unitKind', '=', 'trailer')
      .returningAll(),
);
export const closeTruckVisits = prepareQuery(
  (db, outMovementId: string | null, outAt: number, truckId: string) =>
    db
      .updateTable('visit')
      .set({ outMovementId, outAt })
      .where('outAt', 'is', null)
      .where('truckId', '=', truckId)
      .where('unitKind', '=', 'truck')
      .returningAll(),
);
