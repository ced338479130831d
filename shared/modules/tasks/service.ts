import { assertCanSeeYard, canSeeYard, type Principal, yardFilter } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { TaskStatus } from '../../db/tables.js';
import { decodeCursor, pageInMemory, toPage } from '../../http/cursor.js';
import { NotFoundError } from '../../http/errors.js';
import type { TrailerService } from '../trailers/service.js';
import { type DispatchDeps, Dispatcher, type DriverState } from './dispatch.js';
import { createTasks, deleteTask, loadForStaff, patchTask, replaceTask, type WriteOutcome } from './edits.js';
import { NextBuild } from './next-build.js';
import { taskEventOut, taskOut } from './out.js';
import { type TaskRow, taskRepo } from './repo.js';
import type {
  DriverAvailabilityT,
  DriversQueryT,
  TaskCreateT,
  TaskOutT,
  TaskPatchT,
  TaskPutT,
  TaskSummaryT,
} from './schema.js';
import { yardSummaries } from './summary.js';
import { type TransitionOptions, transitionTask, type WorkTransition } from './transition.js';
import { announce } from './writes.js';

/** The parts and services tasks use (the dispatcher's are the widest: DispatchDeps). */
export type TaskDeps = DispatchDeps &
  Pick<CoreParts, 'reads'> & {
    /** A completed move puts its trailer on the destination spot (trailers module, same transaction). */
    trailers: Pick<TrailerService, 'placeOnSpot'>;
  };

/**
 * Yard tasks: the state machine (docs/domain.md "Yard tasks"), assignment and auto-dispatch, summaries.
 * Writes happen in edits.ts / transition.ts / dispatch.ts; this class runs the after-commit
 * steps (events, push, dispatch) the same way for all of them.
 */
export class TaskService {
  private readonly dispatcher: Dispatcher;
  /** Dashboards polling the summaries at once share builds, each begun after its request (next-build.ts). */
  private readonly summaryBuilds = new NextBuild<{ items: TaskSummaryT[] }>();

  constructor(private readonly deps: TaskDeps) {
    this.dispatcher = new Dispatcher(deps);
  }

  taskOut(row: TaskRow): TaskOutT {
    return taskOut(row);
  }

  /** Staff see tasks of their yards; a driver only its own tasks (anything else is 404). */
  async get(principal: Principal, id: string): Promise<TaskOutT> {
    const row = await loadForStaff(this.deps.kysely, principal, id);
    if (principal.role === 'driver' && row.driverId !== principal.id) throw new NotFoundError('Task', id);
    return taskOut(row);
  }

  async list(
    principal: Principal,
    q: {
      limit: number;
      cursor?: string | undefined;
      yardId?: string | undefined;
      status?: TaskStatus[] | undefined;
      driverId?: string | undefined;
    },
  ) {
    const yardIds = yardFilter(principal, q.yardId);
    const afterId = q.cursor ? String(decodeCursor(q.cursor, 1)[0]) : undefined;
    const rows = await taskRepo.list(this.deps.kysely, {
      limit: q.limit,
      afterId,
      yardIds,
      statuses: q.status,
      driverId: q.driverId,
    });
    return toPage(rows, q.limit, taskOut, (r) => [r.id]);
  }

  async history(principal: Principal, id: string, q: { limit: number; cursor?: string | undefined }) {
    await loadForStaff(this.deps.kysely, principal, id);
    const after = q.cursor ? decodeCursor(q.cursor, 2) : undefined;
    const rows = await taskRepo.events(
      this.deps.kysely,
      id,
      q.limit,
      after ? { at: Number(after[0]), id: String(after[1]) } : undefined,
    );
    return toPage(rows, q.limit, taskEventOut, (r) => [r.at, r.id]);
  }

  /** One task, or a batch (all or nothing). Unassigned new tasks are offered to dispatch at once. */
  async create(principal: Principal, body: TaskCreateT | { tasks: TaskCreateT[] }) {
    const batch = 'tasks' in body;
    const outcome = await createTasks(this.deps, principal, batch ? body.tasks : [body], batch);
    const rows = await this.afterCommit(outcome);
    return batch ? { items: rows.map(taskOut) } : taskOut(rows[0] as TaskRow);
  }

  async replace(principal: Principal, id: string, body: TaskPutT, ifMatch?: number): Promise<TaskOutT> {
    return this.single(await replaceTask(this.deps, principal, id, body, ifMatch));
  }

  async patch(principal: Principal, id: string, body: TaskPatchT, ifMatch?: number): Promise<TaskOutT> {
    return this.single(await patchTask(this.deps, principal, id, body, ifMatch));
  }

  async delete(principal: Principal, id: string, ifMatch?: number): Promise<void> {
    const row = await deleteTask(this.deps, principal, id, ifMatch);
    this.deps.bus.publish({ type: 'task.deleted', yardId: row.yardId, driverId: null, data: taskOut(row) });
  }

  /** Start, complete or cancel (the drivers' operations; staff may cancel through PATCH). */
  async transition(
    principal: Principal,
    taskId: string,
    to: WorkTransition,
    opts: TransitionOptions = {},
  ): Promise<TaskOutT> {
    return this.single(await transitionTask(this.deps, principal, taskId, to, opts));
  }

  /** Auto-assignment for one yard (when the setting tasks.autoAssign is on); never throws. */
  dispatch(yardId: string): Promise<void> {
    return this.dispatcher.dispatch(yardId);
  }

  async availabilityOf(yardId?: string): Promise<DriverAvailabilityT[]> {
    return (await this.dispatcher.availabilityOf(yardId)).map(({ idleSince: _, ...d }) => d);
  }

  /** The organisation's yard drivers; scoped staff see drivers without a session or in their yards. */
  /** Availability is computed for every driver at once, so the page is cut from that (by driver id). */
  async drivers(principal: Principal, query: DriversQueryT) {
    const { yardId } = query;
    if (yardId !== undefined) assertCanSeeYard(principal, yardId);
    const all = await this.availabilityOf(yardId);
    const visible = all.filter((d) => !d.session || canSeeYard(principal, d.session.yardId));
    return pageInMemory(visible, query, (d) => [d.driverId]);
  }

  /** A driver's open tasks, most urgent first, then oldest (a handful: tasks.maxAssignedPerDriver). */
  async tasksForDriver(driverId: string, query: { limit: number; cursor?: string | undefined }) {
    const rows = await taskRepo.openForDriver(this.deps.kysely, driverId);
    const page = pageInMemory(rows, query, (r) => [-r.priority, r.createdAt, r.id]);
    // The driver must find the trailer, and may not read trailers: the list says which one it is.
    const trailerIds = [...new Set(page.items.flatMap((r) => (r.trailerId ? [r.trailerId] : [])))];
    const labels = new Map(
      (await taskRepo.trailerLabels(this.deps.kysely, trailerIds)).map((t) => [
        t.id,
        { number: t.number, carrierName: t.carrierName, locationId: t.locationId },
      ]),
    );
    return {
      items: page.items.map((r) => ({
        ...taskOut(r),
        trailer: (r.trailerId && labels.get(r.trailerId)) || null,
      })),
      nextCursor: page.nextCursor,
    };
  }

  async summary(principal: Principal, yardId: string): Promise<TaskSummaryT> {
    assertCanSeeYard(principal, yardId);
    const yard = await taskRepo.yard(this.deps.kysely, yardId);
    if (!yard) throw new NotFoundError('Yard', yardId);
    const drivers = this.dispatcher.availabilityOf(yardId).then((list) => () => list);
    const [summary] = await yardSummaries(this.deps, [yard], drivers);
    return summary!;
  }

  /** Every yard in the principal's scope; drivers counted in the yard of their open session. */
  summaries(principal: Principal): Promise<{ items: TaskSummaryT[] }> {
    return this.summaryBuilds.get(principal.yardIds?.join(',') ?? '*', () => this.buildSummaries(principal));
  }

  private async buildSummaries(principal: Principal): Promise<{ items: TaskSummaryT[] }> {
    // Figures: read by the read pool, off the event loop (a few hundred yards' drivers). The
    // drivers' reads (three statements in a row) run beside the yards' and the task figures'.
    const drivers = this.dispatcher
      .availabilityOf(undefined, { onShift: true, db: this.deps.reads.kysely })
      .then((list) => {
        const byYard = new Map<string, DriverState[]>();
        for (const d of list) {
          if (!d.session) continue;
          const inYard = byYard.get(d.session.yardId);
          if (inYard) inYard.push(d);
          else byYard.set(d.session.yardId, [d]);
        }
        return (yardId: string) => byYard.get(yardId) ?? [];
      });
    // A failed yards read must not leave the drivers' promise rejected with no one awaiting it.
    drivers.catch(() => undefined);
    const yards = await taskRepo.yardsIn(this.deps.kysely, principal.yardIds);
    return { items: await yardSummaries(this.deps, yards, drivers) };
  }

  private async single(outcome: WriteOutcome): Promise<TaskOutT> {
    const [row] = await this.afterCommit(outcome);
    return taskOut(row as TaskRow);
  }

  /**
   * Events and push messages, then dispatch in the yards concerned (a task was queued or a
   * driver freed). Answers the written rows as they are after dispatch.
   */
  private async afterCommit(outcome: WriteOutcome): Promise<TaskRow[]> {
    announce(this.deps, outcome.announcements);
    if (outcome.yards.size === 0) return outcome.rows;
    await Promise.all([...outcome.yards].map((y) => this.dispatcher.dispatch(y)));
    const fresh = await Promise.all(outcome.rows.map((r) => taskRepo.byId(this.deps.kysely, r.id)));
    return fresh.map((row, i) => row ?? (outcome.rows[i] as TaskRow));
  }
}
