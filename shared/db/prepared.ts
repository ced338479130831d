import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { DB } from './tables.js';

type Kdb = Kysely<DB>;

/**
 * Compile-once queries. Kysely rebuilds and recompiles a query on every call, which on a small
 * gate box costs more than running an indexed SQLite statement. `prepareQuery` builds the query
 * once with placeholder values and then only binds the real values (and the SQL text hits the
 * prepared-statement cache). The builder must pass its arguments straight through as values;
 * anything computed from an argument inside the builder would be frozen at the placeholder.
 */
export function prepareQuery<A extends unknown[], R>(
  build: (db: Kdb, ...args: A) => Compilable<R>,
): (executor: Kdb, ...args: A) => Promise<R[]> {
  // Compiled once per dialect (its adapter's class): an app has one, but a process may hold both
  // (tests comparing SQLite and PostgreSQL), and each needs its own placeholders. Every executor of
  // a dialect shares the app's plugin set.
  const byDialect = new Map<unknown, { query: CompiledQuery<R>; slots: Array<number | null> }>();
  return async (executor, ...args) => {
    const dialect = executor.getExecutor().adapter.constructor;
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      const placeholders = args.map((_, i) => placeholder(i)) as A;
      const query = build(executor, ...placeholders).compile();
      compiled = { query, slots: slotsOf(query.parameters, args.length) };
      byDialect.set(dialect, compiled);
    }
    const { query, slots } = compiled;
    const parameters = slots.map((slot, i) => (slot === null ? query.parameters[i] : args[slot]));
    const result = await executor.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}

/**
 * One compiled statement per shape (for example an INSERT per set of columns), bound per call.
 * `shapeKey` names the shape; `build` receives placeholder values in the order of `values`.
 */
export class ShapeCache {
  private readonly shapes = new Map<string, { query: CompiledQuery; slots: Array<number | null> }>();

  constructor(private readonly max = 500) {}

  async run<R>(
    executor: Kdb,
    shapeKey: string,
    values: readonly unknown[],
    build: (placeholders: string[]) => Compilable<R>,
  ): Promise<R[]> {
    // Per dialect as well as per shape: a module-level cache serves every app of the process, and a
    // test process may hold a SQLite and a PostgreSQL app (each needs its own placeholders).
    const key = `${executor.getExecutor().adapter.constructor.name}|${shapeKey}`;
    let shape = this.shapes.get(key);
    if (!shape) {
      const query = build(values.map((_, i) => placeholder(i))).compile();
      shape = { query, slots: slotsOf(query.parameters, values.length) };
      if (this.shapes.size >= this.max) this.shapes.delete(this.shapes.keys().next().value!);
      this.shapes.set(key, shape);
    }
    const { query, slots } = shape;
    const parameters = slots.map((slot, i) => (slot === null ? query.parameters[i] : values[slot]));
    const result = await executor.executeQuery<R>({ ...query, parameters } as CompiledQuery<R>);
    return result.rows;
  }
}

const MARK = '\u0000kysely-slot:';

function placeholder(i: number): string {
  return `${MARK}${i}`;
}

/** Which argument fills each parameter of the compiled query (null = a constant of the query itself). */
function slotsOf(parameters: readonly unknown[], arity: number): Array<number | null> {
  const slots = parameters.map((p) =>
    typeof p === 'string' && p.startsWith(MARK) ? Number(p.slice(MARK.length)) : null,
  );
  const used = new Set(slots.filter((s) => s !== null));
  if (used.size !== arity) {
    throw new Error('prepareQuery: every argument must be passed to the query exactly as a value');
  }
  return slots;
}
