import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

/**
 * Opens a <dialog> as modal on mount (focus moves in, Esc cancels) and, when it goes away, puts
 * focus back on what opened it (the row's button), so a keyboard user continues where they were.
 */
export function useModal(dialog: RefObject<HTMLDialogElement | null>): void {
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
}
