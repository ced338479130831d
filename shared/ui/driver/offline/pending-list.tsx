import { yardTime } from '../../common/time';
import { conflictMessage, kindLabel, taskName } from './action-text';
import { conflicts, dismissConflict, pending } from './outbox';
import './offline.css';

/** The phone's own zone until the screen passes the yard's. */
const phoneZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * Actions waiting for the link, oldest first, each with its kind, task and time. The live region
 * is always in the page (empty when nothing waits), so a screen reader hears each change.
 */
export function PendingActions({ timeZone }: { timeZone?: string | undefined }) {
  const list = pending.value;
  const zone = timeZone ?? phoneZone();
  return (
    <div class="outbox-pending" role="status" aria-live="polite" data-testid="pending-actions">
      {list.length > 0 && (
        <section aria-labelledby="outbox-pending-title">
          <h2 id="outbox-pending-title">Actions waiting to be sent ({list.length})</h2>
          <ul>
            {list.map((a) => (
              <li key={a.id} data-action-id={a.id} data-task-id={a.taskId}>
                <strong>{kindLabel(a.kind)}</strong> {taskName(a)}
                {a.reason ? ` (${a.reason})` : ''}, tapped at{' '}
                <time dateTime={a.at}>{yardTime(a.at, zone)}</time>: waiting for the link
              </li>
            ))}
          </ul>
          <p class="hint">
            Sent by itself as soon as the link is back (and you are logged in). Nothing else to do.
          </p>
        </section>
      )}
    </div>
  );
}

/** Actions the server refused, in plain words, each until the driver dismisses it. */
export function Conflicts() {
  const list = conflicts.value;
  return (
    <div class="outbox-conflicts" role="status" aria-live="polite" data-testid="conflicts">
      {list.map((c) => {
        const textId = `conflict-${c.action.id}`;
        return (
          <div class="outbox-conflict" key={c.action.id} data-action-id={c.action.id}>
            <p id={textId}>{conflictMessage(c.action, c.code, c.detail)}</p>
            <button type="button" aria-describedby={textId} onClick={() => void dismissConflict(c.action.id)}>
              Dismiss
            </button>
          </div>
        );
      })}
    </div>
  );
}
