import { duration } from '../../common/time';
import type { TaskSummary } from './data';
import { count } from './occupancy';

/** "12 min over 30 tasks", or "no task yet" when none counts (a new yard, a quiet day). */
function stat(s: { p90Sec: number | null; count: number }, of: string) {
  if (s.p90Sec === null || s.count === 0) return <span class="muted">no {of} yet</span>;
  return (
    <>
      {duration(s.p90Sec * 1000)} <span class="muted">over {count.format(s.count)} tasks</span>
    </>
  );
}

/** Open yard tasks by status, how long they wait and take (p90), and the drivers' availability. */
export function TaskFigures(props: { t: TaskSummary }) {
  const { t } = props;
  const open = t.counts.QUEUED + t.counts.ASSIGNED + t.counts.IN_PROGRESS;
  return (
    <section class="panel figure" aria-labelledby="tasks-heading">
      <h2 id="tasks-heading">Yard tasks</h2>
      <dl class="facts">
        <dt>Open</dt>
        <dd data-figure="open-tasks">
          {count.format(open)} ({count.format(t.counts.QUEUED)} waiting for a driver,{' '}
          {count.format(t.counts.ASSIGNED)} assigned, {count.format(t.counts.IN_PROGRESS)} in progress)
        </dd>
        <dt>Done today</dt>
        <dd>{count.format(t.completedToday)}</dd>
        <dt>Wait for a driver (p90)</dt>
        <dd>{stat(t.wait, 'task picked up')}</dd>
        <dt>Duration (p90)</dt>
        <dd>{stat(t.duration, 'task done')}</dd>
        <dt>Drivers</dt>
        <dd>
          {count.format(t.drivers.available)} available, {count.format(t.drivers.busy)} busy,{' '}
          {count.format(t.drivers.offline)} offline
        </dd>
      </dl>
    </section>
  );
}
