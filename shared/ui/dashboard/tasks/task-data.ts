import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../../common/api/client';
import { onLive } from '../../common/live';
import { applyTaskEvent, byFinish, byUrgency, RECENT_DONE } from './task-lists';
import { DONE_STATUSES, OPEN_STATUSES, type Task } from './task-words';

export type DriverAvailability = Schemas['YardDriverAvailability'];
export type Location = Schemas['Location'];
/** A task's trailer as the rows name it: its number and the spot it stands on now. */
export interface TrailerWords {
  number: string;
  locationId: string | null;
}

/** Pages read at most per list (500 each): a yard's open tasks fit many times over. */
const MAX_PAGES = 10;

async function allPages(yardId: string, status: readonly Task['status'][]): Promise<Task[]> {
  const out: Task[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await call(
      api.GET('/api/yard-task', {
        params: { query: { yardId, status: [...status], limit: 500, ...(cursor ? { cursor } : {}) } },
      }),
    );
    out.push(...page.items);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return out;
}

/** Most trailer ids in one list request (the API's limit). */
const TRAILER_IDS = 100;

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** These trailers' numbers and spots in one request; those not answered are unknown to the user. */
async function loadTrailers(ids: string[]): Promise<Array<[string, TrailerWords]>> {
  const unknown = (id: string): [string, TrailerWords] => [
    id,
    { number: 'unknown trailer', locationId: null },
  ];
  try {
    const page = await call(api.GET('/api/trailer', { params: { query: { ids, limit: TRAILER_IDS } } }));
    const got = new Map(page.items.map((t) => [t.id, t]));
    return ids.map((id) => {
      const t = got.get(id);
      return t ? [id, { number: t.number, locationId: t.locationId }] : unknown(id);
    });
  } catch {
    return ids.map(unknown);
  }
}

/**
 * The tasks screen's data: the yard's open tasks, the recently finished ones, its drivers with
 * availability, its locations and trailer numbers. Task events update the lists in place; driver
 * sessions re-read the drivers; a gap in the stream reads everything anew.
 */
export function useTaskData(yardId: string | undefined) {
  const [open, setOpen] = useState<Task[] | null>(null);
  const [done, setDone] = useState<Task[]>([]);
  const [drivers, setDrivers] = useState<DriverAvailability[]>([]);
  const [locations, setLocations] = useState<Location[]>([]);
  const [trailers, setTrailers] = useState<Map<string, TrailerWords>>(new Map());
  const [problem, setProblem] = useState<string | null>(null);
  const asked = useRef(new Set<string>());
  const lists = useRef({ open: [] as Task[], done: [] as Task[] });

  const setLists = (next: { open: Task[]; done: Task[] }) => {
    lists.current = next;
    setOpen(next.open);
    setDone(next.done);
  };

  const loadDrivers = useCallback(async () => {
    // Every yard driver of the organisation (with yardId the API lists only those on shift here).
    const page = await call(api.GET('/api/yard-task/drivers', { params: { query: { limit: 500 } } }));
    setDrivers(page.items);
  }, []);

  const reload = useCallback(async () => {
    if (!yardId) return;
    try {
      const [openTasks, finished] = await Promise.all([
        allPages(yardId, OPEN_STATUSES),
        allPages(yardId, DONE_STATUSES),
      ]);
      setLists({ open: openTasks.sort(byUrgency), done: finished.sort(byFinish).slice(0, RECENT_DONE) });
      setProblem(null);
    } catch (err) {
      setProblem(`The tasks could not be loaded: ${(err as Error).message} Reload the page to try again.`);
    }
    await loadDrivers().catch(() => undefined);
  }, [yardId, loadDrivers]);

  useEffect(() => {
    if (!yardId) return;
    setOpen(null);
    void reload();
    call(
      api.GET('/api/yard/{id}/location', { params: { path: { id: yardId }, query: { limit: 500 } } }),
    ).then(
      (page) => setLocations(page.items),
      () => undefined,
    );
  }, [yardId, reload]);

  useEffect(() => {
    if (!yardId) return;
    return onLive(
      ['task.', 'driver.session.', 'sync.applied'],
      (e) => {
        if (e.type.startsWith('task.')) {
          const task = (e.data as { data?: Task }).data;
          if (task?.id) setLists(applyTaskEvent(lists.current, e.type, task, yardId));
          void loadDrivers().catch(() => undefined); // open task counts changed
        } else if (e.type === 'sync.applied') {
          void reload(); // rows from a peer: tasks made or changed on the other side
        } else {
          void loadDrivers().catch(() => undefined);
        }
      },
      () => void reload(),
    );
  }, [yardId, reload, loadDrivers]);

  // Trailer numbers of the tasks shown, each asked once: one list request per 100 trailers (the
  // API's most ids per request), not one per task. A trailer not answered (gone, or in a yard out
  // of the user's scope) reads "unknown trailer".
  useEffect(() => {
    const wanted = [
      ...new Set(
        [...(open ?? []), ...done]
          .map((t) => t.trailerId)
          .filter((id): id is string => id !== null && !asked.current.has(id)),
      ),
    ];
    if (wanted.length === 0) return;
    for (const id of wanted) asked.current.add(id);
    void Promise.all(chunks(wanted, TRAILER_IDS).map(loadTrailers)).then((found) =>
      setTrailers((m) => new Map([...m, ...found.flat()])),
    );
  }, [open, done]);

  /** Knows a trailer number the user picked already (no need to ask the server). */
  const rememberTrailer = (id: string, number: string) => {
    asked.current.add(id);
    setTrailers((m) => new Map(m).set(id, { number, locationId: m.get(id)?.locationId ?? null }));
  };

  return { open, done, drivers, locations, trailers, problem, reload, rememberTrailer };
}
