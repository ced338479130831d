import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** A modal <dialog> (focus kept inside, Esc closes) for one change to a task. */
export function TaskDialog(props: {
  id: string;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      class="dialog task-dialog"
      aria-labelledby={`${props.id}-heading`}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
