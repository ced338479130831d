import type Database from 'better-sqlite3';
import type { ObservedRow, RowObserver, RowWrite } from '../../../sync/row-observers.js';
import {
  FIGURE,
  type FigureDelta,
  type MovementDelta,
  movementBuckets,
  netFigures,
  trailerFigures,
  truckFigures,
  visitFigures,
} from './rules.js';

/**
 * Keeps the dashboard's rollups (rules.ts) in step with each trailer, truck, movement and visit row
 * written, in the write's transaction. Registered with ChangeCapture.observers by the composition
 * root (shared/services.ts), which hands the same list to the sync applier.
 *
 * Runs on the better-sqlite3 connection the writers share (ChangeCapture's Kysely transaction and
 * the applier's transaction are both on it), synchronously, because the applier cannot await. The
 * SQL is kept to what PostgreSQL runs as well (INSERT ... ON CONFLICT DO UPDATE, plain arithmetic;
 * buckets are computed here, not with SQLite functions); a PostgreSQL port (issue 16) swaps the
 * executor, not the statements.
 */
export class DashboardRollups implements RowObserver {
  readonly tables: ReadonlySet<string> = new Set(['movement', 'trailer', 'truck', 'visit']);
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly sqlite: Database.Database,
    /** Told of every write that may change a rollup (answers built from them are out of date). */
    private readonly onChange: () => void = () => {},
  ) {}

  rowWritten({ table, before, after }: RowWrite): void {
    this.onChange();
    if (table === 'movement') this.movementWritten(before, after);
    else if (table === 'trailer') this.addFigures(netFigures(trailerFigures(before), trailerFigures(after)));
    else if (table === 'truck') this.truckWritten(before, after);
    else if (table === 'visit') this.visitWritten(before, after);
  }

  private movementWritten(before: ObservedRow | undefined, after: ObservedRow | undefined): void {
    if (before && after && sameMovementBucket(before, after)) return;
    for (const d of [...movementBuckets(before, -1), ...movementBuckets(after, 1)]) this.addMovement(d);
  }

  private truckWritten(before: ObservedRow | undefined, after: ObservedRow | undefined): void {
    if (before?.yardId === after?.yardId && before && after) return;
    const figures = (row: ObservedRow | undefined) =>
      row ? truckFigures(row.yardId, this.arrival(String(row.id), row.yardId)) : [];
    this.addFigures(netFigures(figures(before), figures(after)));
  }

  private visitWritten(before: ObservedRow | undefined, after: ObservedRow | undefined): void {
    this.addFigures(netFigures(visitFigures(before), visitFigures(after)));
    // A visit's unit, yard and check-in time never change: only a new visit moves an arrival.
    if (before || !after || typeof after.truckId !== 'string') return;
    const truckId = after.truckId;
    const yardId = String(after.yardId);
    const inAt = Number(after.inAt);
    const previous = this.arrival(truckId, yardId);
    if (previous !== undefined && previous >= inAt) return;
    this.run(
      'arrival|put',
      'INSERT INTO dashboard_truck_arrival (truck_id, yard_id, at) VALUES (?, ?, ?) ' +
        'ON CONFLICT (truck_id, yard_id) DO UPDATE SET at = excluded.at',
      truckId,
      yardId,
      inAt,
    );
    const truckYard = this.statement('truck|yard', 'SELECT yard_id FROM truck WHERE id = ?')
      .pluck()
      .get(truckId);
    if (truckYard !== yardId) return;
    this.addFigures(
      netFigures(truckFigures(yardId, previous), truckFigures(yardId, inAt)).filter(
        (d) => d.figure === FIGURE.truckArrival,
      ),
    );
  }

  private arrival(truckId: string, yardId: unknown): number | undefined {
    if (typeof yardId !== 'string') return undefined;
    const at = this.statement(
      'arrival|get',
      'SELECT at FROM dashboard_truck_arrival WHERE truck_id = ? AND yard_id = ?',
    )
      .pluck()
      .get(truckId, yardId);
    return at === undefined || at === null ? undefined : Number(at);
  }

  private addFigures(deltas: FigureDelta[]): void {
    for (const d of deltas) {
      this.run(
        'figure|add',
        'INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total) VALUES (?, ?, ?, ?, ?) ' +
          'ON CONFLICT (yard_id, figure, item) DO UPDATE SET n = dashboard_yard_figure.n + excluded.n, ' +
          'total = dashboard_yard_figure.total + excluded.total',
        d.yardId,
        d.figure,
        d.item,
        d.n,
        d.total,
      );
    }
  }

  private addMovement(d: MovementDelta): void {
    this.run(
      'movement|add',
      'INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (scope, grain, bucket, direction) DO UPDATE SET n = dashboard_movement_count.n + excluded.n',
      d.scope,
      d.grain,
      d.bucket,
      d.direction,
      d.n,
    );
  }

  private run(key: string, sql: string, ...params: unknown[]): void {
    this.statement(key, sql).run(...params);
  }

  private statement(key: string, sql: string): Database.Statement {
    let stmt = this.statements.get(key);
    if (!stmt) {
      stmt = this.sqlite.prepare(sql);
      this.statements.set(key, stmt);
    }
    return stmt;
  }
}

function sameMovementBucket(a: ObservedRow, b: ObservedRow): boolean {
  return a.yardId === b.yardId && a.direction === b.direction && a.at === b.at;
}
