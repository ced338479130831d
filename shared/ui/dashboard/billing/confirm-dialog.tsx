import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from '../../common/components/dialog';
import { FormMessage } from '../../common/components/field';
import { ReasonField } from '../reason-field';

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
          <ReasonField
            id="confirm-reason"
            label={props.reason.label}
            hint={props.reason.hint}
            value={reason}
            error={error}
            onInput={(v) => {
              setReason(v);
              setError(undefined);
            }}
          />
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
