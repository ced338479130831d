import { duration, yardDateTime, yardTime } from '../../common/time';
import { finishedAt, RECENT_DONE } from './task-lists';
import {
  actionsFor,
  priorityWords,
  STATUS_WORDS,
  type Task,
  type TaskStatus,
  TYPE_WORDS,
} from './task-words';

/** What a row needs to name its task's trailer, places and driver. */
export interface Names {
  trailer: (id: string | null) => string;
  location: (id: string | null) => string;
  driver: (id: string | null) => string;
  /** The name of the spot the trailer stands on now, when known. */
  trailerSpot: (id: string | null) => string | null;
}

/**
 * "S03 → Door 2". A task records where its trailer stood when it was made; an older task without
 * that shows where the trailer stands now, which is where the jockey will find it.
 */
export function routeWords(t: Task, n: Names): string {
  const spot = t.fromLocationId ? null : n.trailerSpot(t.trailerId);
  const from = t.fromLocationId
    ? n.location(t.fromLocationId)
    : spot
      ? `${spot} (where it stands)`
      : t.trailerId
        ? 'where it stands'
        : '—';
  const to = t.toLocationId ? n.location(t.toLocationId) : t.trailerId ? 'stays there' : '—';
  return `${from} → ${to}`;
}

/** "Move S03 → Door 2, trailer PRFU 482113": how a dialog names the task. */
export function taskLabel(t: Task, n: Names): string {
  const trailer = t.trailerId ? `, trailer ${n.trailer(t.trailerId)}` : '';
  return `${TYPE_WORDS[t.type]} ${routeWords(t, n)}${trailer}`;
}

/** How long a task has waited: "under 1 min", "12 min", "3 h 5 min". */
export function age(ms: number): string {
  return ms < 60_000 ? 'under 1 min' : duration(ms);
}

export type TaskAction = 'assign' | 'unassign' | 'cancel';

/** Open tasks of one status: a real table with its caption and the row actions the role may use. */
export function OpenTaskTable(props: {
  status: TaskStatus;
  tasks: Task[];
  names: Names;
  timeZone: string;
  now: number;
  mayEdit: boolean;
  onAction: (action: TaskAction, task: Task) => void;
}) {
  const empty: Record<string, string> = {
    QUEUED: 'No task is waiting for a driver.',
    ASSIGNED: 'No task is assigned and waiting to start.',
    IN_PROGRESS: 'No driver is working on a task right now.',
  };
  return (
    <section class="task-group" aria-labelledby={`tasks-${props.status}`}>
      <h2 id={`tasks-${props.status}`}>
        {STATUS_WORDS[props.status]} <span class="count">({props.tasks.length})</span>
      </h2>
      {props.tasks.length === 0 ? (
        <p class="muted">{empty[props.status]}</p>
      ) : (
        <table class="task-table open-tasks">
          <caption class="visually-hidden">{STATUS_WORDS[props.status]} tasks, most urgent first</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Trailer</th>
              <th scope="col">From → to</th>
              <th scope="col">Priority</th>
              <th scope="col">Driver</th>
              <th scope="col">Age</th>
              {props.mayEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {props.tasks.map((t) => (
              <TaskRow key={t.id} {...props} task={t} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function TaskRow(props: {
  task: Task;
  names: Names;
  timeZone: string;
  now: number;
  mayEdit: boolean;
  onAction: (action: TaskAction, task: Task) => void;
}) {
  const { task: t, names: n } = props;
  const can = actionsFor(t.status);
  const label = taskLabel(t, n);
  return (
    <tr data-task-id={t.id}>
      <th scope="row">
        {TYPE_WORDS[t.type]}
        {t.notes && <small class="task-notes">{t.notes}</small>}
      </th>
      <td>{t.trailerId ? n.trailer(t.trailerId) : <span class="muted">none</span>}</td>
      <td>{routeWords(t, n)}</td>
      <td>
        <span class={`priority p${t.priority}`}>{priorityWords(t.priority)}</span>
      </td>
      <td>{t.driverId ? n.driver(t.driverId) : <span class="muted">nobody yet</span>}</td>
      <td>
        <time dateTime={t.createdAt} title={`Created ${yardDateTime(t.createdAt, props.timeZone)}`}>
          {age(props.now - Date.parse(t.createdAt))}
        </time>
      </td>
      {props.mayEdit && (
        <td class="task-actions">
          {can.assign && (
            <button
              type="button"
              aria-label={`${t.driverId ? 'Reassign' : 'Assign'} ${label}`}
              onClick={() => props.onAction('assign', t)}
            >
              {t.driverId ? 'Reassign' : 'Assign'}
            </button>
          )}
          {can.unassign && (
            <button
              type="button"
              aria-label={`Unassign ${label}`}
              onClick={() => props.onAction('unassign', t)}
            >
              Unassign
            </button>
          )}
          {can.cancel && (
            <button type="button" aria-label={`Cancel ${label}`} onClick={() => props.onAction('cancel', t)}>
              Cancel
            </button>
          )}
        </td>
      )}
    </tr>
  );
}

/** The recently completed and cancelled tasks, latest first. */
export function DoneTaskTable(props: { tasks: Task[]; names: Names; timeZone: string }) {
  const n = props.names;
  return (
    <section class="task-group" aria-labelledby="tasks-done">
      <h2 id="tasks-done">
        Recently completed or cancelled <span class="count">(latest {RECENT_DONE})</span>
      </h2>
      {props.tasks.length === 0 ? (
        <p class="muted">No task has been completed or cancelled yet.</p>
      ) : (
        <table class="task-table done-tasks">
          <caption class="visually-hidden">Recently completed or cancelled tasks, latest first</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Trailer</th>
              <th scope="col">From → to</th>
              <th scope="col">Driver</th>
              <th scope="col">Outcome</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {props.tasks.map((t) => (
              <tr key={t.id} data-task-id={t.id}>
                <th scope="row">{TYPE_WORDS[t.type]}</th>
                <td>{t.trailerId ? n.trailer(t.trailerId) : <span class="muted">none</span>}</td>
                <td>{routeWords(t, n)}</td>
                <td>{t.driverId ? n.driver(t.driverId) : <span class="muted">nobody</span>}</td>
                <td>
                  <span class={`badge ${t.status === 'COMPLETED' ? 'ok' : 'warn'}`}>
                    {STATUS_WORDS[t.status]}
                  </span>
                  {t.cancelReason && <small class="task-notes">{t.cancelReason}</small>}
                </td>
                <td>
                  <time dateTime={finishedAt(t)} title={yardDateTime(finishedAt(t), props.timeZone)}>
                    {yardTime(finishedAt(t), props.timeZone)}
                  </time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
