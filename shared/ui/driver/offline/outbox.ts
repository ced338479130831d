import { signal } from '@preact/signals';
import { api, call } from '../../common/api/client';

/**
 * The driver's task actions (start, complete, cancel) go through here, never straight to the API:
 * each gets its own id (sent as the Idempotency-Key), is kept in IndexedDB until the server has
 * answered, shown as pending meanwhile, and replayed when the link is back. A replay never applies
 * twice (the server remembers the key with its answer); a task that was reassigned or cancelled
 * meanwhile comes back as a conflict, shown until the driver dismisses it.
 *
 * FOUNDATION STUB: sends at once, no queue yet (the offline helper replaces the body, not the API).
 */
export type ActionKind = 'start' | 'complete' | 'cancel';

export interface DriverAction {
  /** Unique per action; the Idempotency-Key of every attempt. */
  id: string;
  kind: ActionKind;
  taskId: string;
  /** Cancel only: the quick reason. */
  reason?: string;
  /** When the driver tapped (ISO), shown beside a pending action. */
  at: string;
}

export interface Conflict {
  action: DriverAction;
  /** The server's answer for that task: code (e.g. invalid-transition, forbidden) and text. */
  code: string;
  detail: string;
}

/** Actions not yet answered by the server, oldest first. */
export const pending = signal<DriverAction[]>([]);
/** Actions the server refused for that task; the screen shows them until dismissed. */
export const conflicts = signal<Conflict[]>([]);

/** Records the action and sends it (now, or when the link is back). Resolves once it is stored. */
export async function act(kind: ActionKind, taskId: string, reason?: string): Promise<void> {
  const action: DriverAction = {
    id: crypto.randomUUID(),
    kind,
    taskId,
    ...(reason ? { reason } : {}),
    at: new Date().toISOString(),
  };
  const body = { taskIds: [taskId], ...(reason ? { reason } : {}) };
  const path = `/api/yard-task/driver/${kind}` as const;
  const answer = await call(api.POST(path, { body } as never));
  const result = (answer as { results: { ok: boolean; error?: { code: string; detail: string } }[] })
    .results[0];
  if (result && !result.ok && result.error)
    conflicts.value = [...conflicts.value, { action, ...result.error }];
}

export function dismissConflict(id: string): void {
  conflicts.value = conflicts.value.filter((c) => c.action.id !== id);
}
