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
