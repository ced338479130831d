import { useEffect } from 'preact/hooks';
import { liveState } from '../../common/live';

/**
 * Runs `reload` when the live stream is open again after a drop: events of the gap may have been
 * replayed, but a screen built from a status snapshot reads it again to be sure.
 */
export function useReloadOnReconnect(reload: () => void): void {
  useEffect(() => {
    let was = liveState.peek();
    return liveState.subscribe((now) => {
      if (now === 'open' && was === 'reconnecting') reload();
      was = now;
    });
  }, [reload]);
}
