import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { FormMessage } from '../../common/components/field';
import { AssignDialog } from './assign-dialog';
import { CancelDialog } from './cancel-dialog';
import { driverLabel } from './driver-words';
import { patchTask } from './task-api';
import type { useTaskData } from './task-data';
import { DoneTaskTable, type Names, OpenTaskTable, type TaskAction, taskLabel } from './task-table';
import {
  isConflict,
  OPEN_STATUSES,
  STATUS_WORDS,
  type Task,
  type TaskStatus,
  taskProblemWords,
} from './task-words';

type Data = ReturnType<typeof useTaskData>;
type Filter = 'all' | TaskStatus;

/**
 * The yard's open tasks grouped by status (or one status), the recently finished ones, and the
 * dispatcher's changes: assign, reassign, unassign, cancel.
 */
export function TaskList(props: {
  data: Data;
  yardId: string;
  timeZone: string;
  mayEdit: boolean;
  notice?: string | null;
}) {
  const { data } = props;
  const [filter, setFilter] = useState<Filter>('all');
  const [dialog, setDialog] = useState<{ action: 'assign' | 'cancel'; task: Task } | null>(null);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(
    props.notice ? { kind: 'ok', text: props.notice } : null,
  );
  // After a change the dialog (or the row's button) is gone: the focus goes to what happened.
  const messageRef = useRef<HTMLDivElement>(null);
  const firstMessage = useRef(message);
  useEffect(() => {
    if (message && message !== firstMessage.current) messageRef.current?.focus();
  }, [message]);
  // The ages tick once a minute (a clock for the display, not a poll of the server).
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(t);
  }, []);

  const names: Names = useMemo(() => {
    const locations = new Map(data.locations.map((l) => [l.id, l.name]));
    const drivers = new Map(data.drivers.map((d) => [d.driverId, driverLabel(d)]));
    return {
      trailer: (id) => (id ? (data.trailers.get(id)?.number ?? '…') : 'none'),
      location: (id) => (id ? (locations.get(id) ?? 'unknown place') : 'not set'),
      trailerSpot: (id) => {
        const spot = id ? data.trailers.get(id)?.locationId : null;
        return spot ? (locations.get(spot) ?? null) : null;
      },
      driver: (id) => (id ? (drivers.get(id) ?? 'a driver not listed') : 'nobody'),
    };
  }, [data.locations, data.drivers, data.trailers]);

  /** After a change: say what happened; a conflict reloads the list so it shows the truth. */
  const answered = (err: unknown, ok: string) => {
    setDialog(null);
    if (err === undefined) {
      setMessage({ kind: 'ok', text: ok });
      return;
    }
    setMessage({ kind: 'error', text: taskProblemWords(err) });
    if (isConflict(err)) void data.reload();
  };

  const onAction = (action: TaskAction, task: Task) => {
    setMessage(null);
    if (action === 'unassign') {
      patchTask(task, { driverId: null }).then(
        () => answered(undefined, `${taskLabel(task, names)} is queued again, without a driver.`),
        (err: unknown) => answered(err, ''),
      );
    } else {
      setDialog({ action, task });
    }
  };

  const statuses = filter === 'all' ? OPEN_STATUSES : [filter];
  const open = data.open ?? [];
  return (
    <>
      <div ref={messageRef} tabIndex={-1} class="task-message">
        {message && <FormMessage kind={message.kind}>{message.text}</FormMessage>}
      </div>
      <div class="task-filter">
        <label for="task-filter">Show</label>
        <select id="task-filter" value={filter} onChange={(e) => setFilter(e.currentTarget.value as Filter)}>
          <option value="all">All open tasks ({open.length})</option>
          {OPEN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_WORDS[s]} ({open.filter((t) => t.status === s).length})
            </option>
          ))}
        </select>
      </div>
      {data.open === null
        ? !data.problem && <p class="muted">Loading the tasks…</p>
        : statuses.map((s) => (
            <OpenTaskTable
              key={s}
              status={s}
              tasks={open.filter((t) => t.status === s)}
              names={names}
              timeZone={props.timeZone}
              now={now}
              mayEdit={props.mayEdit}
              onAction={onAction}
            />
          ))}
      {data.open !== null && <DoneTaskTable tasks={data.done} names={names} timeZone={props.timeZone} />}
      {dialog?.action === 'assign' && (
        <AssignDialog
          task={dialog.task}
          label={taskLabel(dialog.task, names)}
          yardId={props.yardId}
          drivers={data.drivers}
          onClose={() => setDialog(null)}
          onDone={(err, driverId) =>
            answered(
              err,
              `${taskLabel(dialog.task, names)} is assigned to ${names.driver(driverId ?? null)}.`,
            )
          }
        />
      )}
      {dialog?.action === 'cancel' && (
        <CancelDialog
          task={dialog.task}
          label={taskLabel(dialog.task, names)}
          onClose={() => setDialog(null)}
          onDone={(err) => answered(err, `${taskLabel(dialog.task, names)} is cancelled.`)}
        />
      )}
    </>
  );
}
