import { useEffect, useState } from 'preact/hooks';
import { onLive } from '../../common/live';

/** Figures move in bursts (a check-in, its task, the sync after it): one refresh per burst. */
export const REFRESH_DEBOUNCE_MS = 3000;

type Envelope = { yardId?: string | null; data?: { yardId?: string | null; yardIds?: string[] } };

/** Whether a live event touches this yard's figures. */
export function touchesYard(type: string, event: unknown, yardId: string): boolean {
  const e = (event ?? {}) as Envelope;
  const yard = e.yardId ?? e.data?.yardId ?? null;
  if (yard) return yard === yardId;
  // sync.applied without a yard: org-wide records (carriers' names); with yardIds: the yards touched.
  if (type === 'sync.applied') {
    const touched = e.data?.yardIds;
    return !touched || touched.includes(yardId);
  }
  return false;
}

/**
 * A number that grows a few seconds after live events about the yard (movements, tasks, synced
 * rows), and at once after a reconnect that may have missed some: the figures reload when it
 * changes. No polling loop.
 */
export function useLiveVersion(yardId: string): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bump = () => setVersion((v) => v + 1);
    const off = onLive(
      ['movement.created', 'task.', 'sync.applied'],
      (e) => {
        if (!touchesYard(e.type, e.data, yardId)) return;
        clearTimeout(timer);
        timer = setTimeout(bump, REFRESH_DEBOUNCE_MS);
      },
      bump,
    );
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [yardId]);
  return version;
}
