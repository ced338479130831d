import { api, call, type Schemas } from '../../common/api/client';
import type { Task } from './task-words';

/**
 * A change to a task, sent with If-Match of the version the list shows: if someone changed the
 * task in between, the API answers 412 and nothing is changed (the screen reloads and says so).
 */
export function patchTask(task: Task, body: Schemas['YardTaskPatch']): Promise<Task> {
  return call(
    api.PATCH('/api/yard-task/{id}', {
      params: { path: { id: task.id } },
      body,
      headers: { 'If-Match': `"v${task.version}"` },
    }),
  );
}

/** Trailers in the yard whose number or plate matches, for the new-task type-ahead. */
export async function findTrailersInYard(
  yardId: string,
  q: string,
  signal: AbortSignal,
): Promise<Schemas['Trailer'][]> {
  const page = await call(
    api.GET('/api/trailer', { params: { query: { q, yardId, inYard: true, limit: 30 } }, signal }),
  );
  return page.items;
}

export async function createTask(body: Schemas['YardTaskCreate']): Promise<Task> {
  return (await call(api.POST('/api/yard-task', { body }))) as Task;
}
