import { yardTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import type { ActionKind } from '../offline/outbox';
import { taskHref } from '../route';
import { effectiveStatus, pendingText, priorityName, type Task, trailerOf, typeName } from '../task-list';
import { type Location, places } from '../tasks';

function placeName(id: string | null, all: Map<string, Location>): string | null {
  if (!id) return null;
  return all.get(id)?.name ?? 'a location not in this yard’s list';
}

/**
 * Where the task goes, in words: "S04 → Door 2". Without a from on the task (one made before tasks
 * recorded it), the trailer is picked up where it stands now: its spot, as the server reports it.
 */
export function route(task: Task, all: Map<string, Location>): { from: string | null; to: string | null } {
  return {
    from: placeName(task.fromLocationId ?? task.trailer?.locationId ?? null, all),
    to: placeName(task.toLocationId, all),
  };
}

/**
 * The current task, big: trailer, from -> to, priority, notes, due; Start or Complete as one
 * thumb-sized button at the bottom of the screen, Cancel beside it. A task with an action waiting
 * for the link says so instead of offering the buttons again.
 */
export function TaskCard(props: {
  task: Task;
  pending: ActionKind | null;
  timeZone: string;
  onAction: (kind: 'start' | 'complete') => Promise<void>;
  onCancel: () => void;
}) {
  const { task, pending } = props;
  const status = effectiveStatus(task, pending);
  const trailer = trailerOf(task);
  const { from, to } = route(task, places.value);
  // onAction says itself what went wrong (the shift screen's message); here only one press at a time.
  const { busy, run } = useSubmit(props.onAction);
  const open = status === 'ASSIGNED' || status === 'IN_PROGRESS';
  return (
    <article class={`task-card prio-${task.priority}`} aria-labelledby={`task-${task.id}-title`}>
      <header>
        <h2 id={`task-${task.id}-title`}>{typeName(task.type)}</h2>
        <span class={`badge prio prio-${task.priority}`}>{priorityName(task.priority)}</span>
      </header>
      <dl class="task-facts">
        {task.trailerId && (
          <div>
            <dt>Trailer</dt>
            <dd class="big-text">
              {/* A task that came by a live event names its trailer once the list is read again. */}
              {trailer ? trailer.number : '…'}
              {trailer?.carrier && <small> {trailer.carrier}</small>}
            </dd>
          </div>
        )}
        {(from || to) && (
          <div>
            <dt>From → To</dt>
            <dd class="big-text">
              {from ?? 'Where it stands'} → {to ?? 'Stays there'}
            </dd>
          </div>
        )}
        {task.dueAt && (
          <div>
            <dt>Due</dt>
            <dd>{yardTime(task.dueAt, props.timeZone)}</dd>
          </div>
        )}
        {task.notes && (
          <div>
            <dt>Notes</dt>
            <dd class="notes">{task.notes}</dd>
          </div>
        )}
        <div>
          <dt>Status</dt>
          <dd>{statusText(status, task, props.timeZone)}</dd>
        </div>
      </dl>
      {pending && (
        <p class="pending-note" role="status">
          {pendingText(pending)}
        </p>
      )}
      {open && (
        <div class="task-actions">
          {status === 'ASSIGNED' ? (
            <button type="button" class="primary huge" disabled={busy} onClick={() => run('start')}>
              Start
            </button>
          ) : (
            <button type="button" class="ok huge" disabled={busy} onClick={() => run('complete')}>
              Complete
            </button>
          )}
          <button type="button" class="cancel-task" disabled={busy} onClick={props.onCancel}>
            Cancel task…
          </button>
        </div>
      )}
    </article>
  );
}

function statusText(status: string, task: Task, timeZone: string): string {
  switch (status) {
    case 'ASSIGNED':
      return 'Not started';
    case 'IN_PROGRESS':
      return task.startedAt ? `Started ${yardTime(task.startedAt, timeZone)}` : 'Started';
    case 'COMPLETED':
      return 'Completed';
    case 'CANCELLED':
      return task.cancelReason ? `Cancelled: ${task.cancelReason}` : 'Cancelled';
    default:
      return 'Not assigned to you';
  }
}

/** One line of the queue: what, where to, how urgent; opens the task. */
export function QueueItem(props: { task: Task; pending: ActionKind | null; onOpen: (href: string) => void }) {
  const { task } = props;
  const trailer = trailerOf(task);
  const { to } = route(task, places.value);
  const href = taskHref(task.id);
  return (
    <li class={`queue-item prio-${task.priority}`}>
      <a
        href={href}
        onClick={(e) => {
          e.preventDefault();
          props.onOpen(href);
        }}
      >
        <strong>{typeName(task.type)}</strong>
        <span>
          {trailer ? `${trailer.number} ` : ''}
          {to ? `→ ${to}` : ''}
        </span>
        <span class={`badge prio prio-${task.priority}`}>{priorityName(task.priority)}</span>
        {task.notes && <span class="queue-notes">{task.notes}</span>}
        {props.pending && <span class="pending-note">{pendingText(props.pending)}</span>}
      </a>
    </li>
  );
}
