import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { describedBy, Field, FormMessage } from '../../common/components/field';

/**
 * A modal confirmation (native <dialog>: focus stays inside, Esc cancels). With `reason`, the
 * action needs one typed first (a void is recorded with its reason).
 */
export function ConfirmDialog(props: {
  title: string;
  confirm: string;
  danger?: boolean;
  reason?: { label: string; hint: string };
  problem?: string | null;
  busy?: boolean;
  children: ComponentChildren;
  onConfirm: (reason: string) => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  useLayoutEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const submit = (e: Event) => {
    e.preventDefault();
    if (props.reason && !reason.trim()) {
      setError('Say why (it is kept with the invoice).');
      return;
    }
    props.onConfirm(reason.trim());
  };
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="confirm-heading"
      onCancel={(e) => {
        e.preventDefault();
        props.onCancel();
      }}
    >
      <form onSubmit={submit} noValidate>
        <h2 id="confirm-heading">{props.title}</h2>
        {props.children}
        {props.problem && <FormMessage kind="error">{props.problem}</FormMessage>}
        {props.reason && (
          <Field id="confirm-reason" label={props.reason.label} error={error} hint={props.reason.hint}>
            <input
              {...describedBy('confirm-reason', error, true)}
              value={reason}
              maxLength={500}
              aria-required="true"
              autoComplete="off"
              onInput={(e) => {
                setReason(e.currentTarget.value);
                setError(undefined);
              }}
            />
          </Field>
        )}
        <div class="actions">
          <button type="submit" class={props.danger ? 'danger' : 'primary'} disabled={props.busy}>
            {props.confirm}
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
