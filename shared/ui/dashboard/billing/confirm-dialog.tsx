import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from '../../common/components/dialog';
import { describedBy, Field, FormMessage } from '../../common/components/field';

/**
 * A confirmation in the one modal Dialog (focus stays inside, Esc cancels). With `reason`, the
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
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const submit = (e: Event) => {
    e.preventDefault();
    if (props.reason && !reason.trim()) {
      setError('Say why (it is kept with the invoice).');
      return;
    }
    props.onConfirm(reason.trim());
  };
  return (
    <Dialog id="confirm" title={props.title} onClose={props.onCancel}>
      <form onSubmit={submit} noValidate>
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
    </Dialog>
  );
}
