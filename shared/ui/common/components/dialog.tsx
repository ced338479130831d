import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * The one modal dialog of the apps: a native <dialog> opened with showModal() when it mounts, so
 * focus moves inside and stays there, Esc asks to close (`onClose`; the parent unmounts it), and on
 * closing focus returns to what opened it (the row's button), so a keyboard user goes on where they
 * were. The heading is the dialog's accessible name.
 */
export function Dialog(props: {
  /** Unique on the page: the heading's id is `${id}-heading`. */
  id: string;
  /**
   * The heading. Without one, the dialog is named by `labelledBy` (a form that brings its own
   * heading, as it is also a page: the login) or `label` (a picture, which has no heading).
   */
  title?: ComponentChildren;
  labelledBy?: string;
  label?: string;
  /** Extra classes beside `dialog` (the screen's own layout). */
  class?: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => {
      // Unmounting runs before the element leaves the page: while the modal is still open the page
      // behind is inert and would refuse the focus, so close it first.
      if (d?.open) d.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      id={props.id}
      class={props.class ? `dialog ${props.class}` : 'dialog'}
      aria-labelledby={props.title !== undefined ? `${props.id}-heading` : props.labelledBy}
      aria-label={props.title === undefined && !props.labelledBy ? props.label : undefined}
      onCancel={(e) => {
        // The parent decides (it unmounts the dialog); the browser must not close it behind its back.
        e.preventDefault();
        props.onClose();
      }}
    >
      {props.title !== undefined && <h2 id={`${props.id}-heading`}>{props.title}</h2>}
      {props.children}
    </dialog>
  );
}
