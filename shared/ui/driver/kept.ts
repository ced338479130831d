import { session } from '../common/auth';

/**
 * What the app last knew from the server, kept on the phone per driver (localStorage), so that
 * opened without a network (the service worker serves the shell) it shows the shift and the tasks
 * as they were, marked as possibly out of date, instead of an empty screen.
 */
export function kept<T>(name: string) {
  const key = () => `yard.driver.${session.principal.value?.id ?? 'nobody'}.${name}`;
  return {
    read(): T | null {
      try {
        const raw = localStorage.getItem(key());
        return raw ? (JSON.parse(raw) as T) : null;
      } catch {
        return null;
      }
    },
    write(value: T | null): void {
      try {
        if (value === null) localStorage.removeItem(key());
        else localStorage.setItem(key(), JSON.stringify(value));
      } catch {
        // storage full or refused: the app works on without the copy
      }
    },
  };
}
