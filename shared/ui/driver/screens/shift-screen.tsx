import { useEffect, useState } from 'preact/hooks';
import { FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { pending } from '../offline/outbox';
import { Conflicts, PendingActions } from '../offline/pending-list';
import { PushToggle } from '../push/push-toggle';
import { go, openedTaskId } from '../route';
import { endedElsewhere, endShift, online, shift, shiftYard, startShift, timeZone, yards } from '../shift';
import { arrange, pendingKind, pendingText, type Task, taskTitle } from '../task-list';
import { dismissNotice, doAction, loadTask, notices, stale, tasks } from '../tasks';
import { flushPings, geoState } from '../tracking';
import { CancelDialog } from './cancel-dialog';
import { QueueItem, TaskCard } from './task-card';

/** The shift: start it (choosing the yard if several), then the current task, the queue, end it. */
export function ShiftScreen() {
  if (shift.value === undefined)
    return (
      <p class="muted" role="status">
        {online.value ? 'Checking your shift…' : 'No connection to the yard server. Waiting for the network…'}
      </p>
    );
  return shift.value ? <OnShift /> : <StartShift />;
}

function StartShift() {
  const [yardId, setYardId] = useState<string>('');
  const [missing, setMissing] = useState<string | null>(null);
  const chosen = yardId || (yards.value.length === 1 ? (yards.value[0]?.id ?? '') : '');
  const starting = useSubmit(startShift);
  const busy = starting.busy;
  const refused = starting.problem?.message ?? (starting.failed ? 'Something went wrong. Try again.' : null);
  const error = missing ?? (refused ? `The shift did not start: ${refused}` : null);
  const start = (e: Event) => {
    e.preventDefault();
    if (!chosen) {
      setMissing('Choose the yard you work in today.');
      return;
    }
    setMissing(null);
    void starting.run(chosen);
  };
  return (
    <>
      <form class="panel start-shift" onSubmit={start}>
        <h2>You are off shift</h2>
        {endedElsewhere.value && (
          <FormMessage kind="warn">
            Your shift was ended on another phone or by the office. Start it again here to carry on.
          </FormMessage>
        )}
        {error && <FormMessage kind="error">{error}</FormMessage>}
        {yards.value.length > 1 && (
          <div class="field">
            <label for="shift-yard">Yard</label>
            <select id="shift-yard" value={yardId} onChange={(e) => setYardId(e.currentTarget.value)}>
              <option value="">Choose the yard…</option>
              {yards.value.map((y) => (
                <option key={y.id} value={y.id}>
                  {y.name} ({y.code})
                </option>
              ))}
            </select>
          </div>
        )}
        {yards.value.length === 1 && <p>Yard: {yards.value[0]?.name}</p>}
        <button type="submit" class="primary huge" disabled={busy}>
          {busy ? 'Starting…' : 'Start shift'}
        </button>
      </form>
      {/* Set up before the shift too: the first assignment may come while the phone is locked. */}
      <section class="panel shift-end" aria-label="Notifications">
        <PushToggle />
      </section>
    </>
  );
}

function OnShift() {
  const [cancelling, setCancelling] = useState<Task | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [opened, setOpened] = useState<Task | null>(null);
  const openedId = openedTaskId.value;
  const actions = pending.value;
  const { waiting, current, queue } = arrange(tasks.value, actions, openedId);
  // A task opened by its link that is no longer on the list (done, taken off): read it alone.
  useEffect(() => {
    setOpened(null);
    if (!openedId || tasks.value.some((t) => t.id === openedId)) return;
    loadTask(openedId).then(setOpened, () => setOpened(null));
  }, [openedId, tasks.value.some((t) => t.id === openedId)]);
  const shown = current ?? opened;

  const run = async (kind: 'start' | 'complete' | 'cancel', task: Task, reason?: string) => {
    setProblem(null);
    try {
      await doAction(kind, task.id, reason);
      // Done with the task opened by its link: back to the shift's next task.
      if (kind !== 'start' && openedId === task.id) go('/driver/');
    } catch (err) {
      setProblem(`That did not go through: ${(err as Error).message}`);
    }
  };
  const end = async () => {
    setProblem(null);
    try {
      await flushPings();
      await endShift();
    } catch (err) {
      setProblem(`The shift did not end: ${(err as Error).message}`);
    }
  };
  return (
    <div class="on-shift">
      {geoState.value === 'denied' && (
        <FormMessage kind="warn">
          Location is off for this app, so the office cannot see where you are. You can keep working; to turn
          it on, allow location for this site in the browser’s settings.
        </FormMessage>
      )}
      {stale.value && <FormMessage kind="warn">No connection: the list may be out of date.</FormMessage>}
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {notices.value.map((n) => (
        <div key={n.taskId} class="message warn notice" role="status">
          <span>{n.text}</span>
          <button type="button" onClick={() => dismissNotice(n.taskId)}>
            OK
          </button>
        </div>
      ))}
      <Conflicts />
      {openedId && (
        <a
          class="back"
          href="/driver/"
          onClick={(e) => {
            e.preventDefault();
            go('/driver/');
          }}
        >
          ← All my tasks
        </a>
      )}
      <section aria-labelledby="current-heading">
        <h2 id="current-heading" class="visually-hidden">
          Current task
        </h2>
        {shown ? (
          <TaskCard
            key={shown.id}
            task={shown}
            pending={pendingKind(actions, shown.id)}
            timeZone={timeZone.value}
            onAction={(kind) => run(kind, shown)}
            onCancel={() => setCancelling(shown)}
          />
        ) : (
          <p class="panel empty">No task for you right now. New tasks appear here at once.</p>
        )}
      </section>
      {waiting.length > 0 && (
        <section aria-labelledby="waiting-heading">
          <h2 id="waiting-heading">Done, waiting for the link</h2>
          <ul class="queue">
            {waiting.map((t) => (
              <li key={t.id} class="queue-item task-pending">
                <strong>{taskTitle(t)}</strong>
                <span class="pending-note">{pendingText(pendingKind(actions, t.id) ?? 'complete')}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="queue-heading">
        <h2 id="queue-heading">Next ({queue.length})</h2>
        {queue.length > 0 ? (
          <ul class="queue">
            {queue.map((t) => (
              <QueueItem key={t.id} task={t} pending={pendingKind(actions, t.id)} onOpen={go} />
            ))}
          </ul>
        ) : (
          <p class="muted">Nothing else assigned to you.</p>
        )}
      </section>
      <PendingActions timeZone={timeZone.value} />
      <section class="panel shift-end" aria-label="Shift">
        <p>
          On shift in {shiftYard.value?.name ?? 'the yard'}
          {geoState.value === 'on' && ' · location on'}
        </p>
        <PushToggle />
        <button type="button" class="big" onClick={end}>
          End shift
        </button>
      </section>
      {cancelling && (
        <CancelDialog
          title={taskTitle(cancelling)}
          onCancel={(reason) => run('cancel', cancelling, reason)}
          onClose={() => setCancelling(null)}
        />
      )}
    </div>
  );
}
