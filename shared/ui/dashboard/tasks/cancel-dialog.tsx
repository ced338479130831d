import { useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { Dialog } from '../../common/components/dialog';
import { useSubmit } from '../../common/use-submit';
import { ReasonField } from '../reason-field';
import { patchTask } from './task-api';
import type { Task } from './task-words';

/** Cancel a task with a reason (required; the driver, if any, is told it). */
export function CancelDialog(props: {
  task: Task;
  label: string;
  onClose: () => void;
  onDone: (err?: unknown) => void;
}) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const cancelling = useSubmit(async (why: string) => {
    try {
      await patchTask(props.task, { status: 'CANCELLED', cancelReason: why });
      props.onDone();
    } catch (err) {
      // A reason the server refuses stays in the dialog; anything else is the screen's to say.
      const field = err instanceof ProblemError ? err.fieldErrors().cancelReason : undefined;
      if (field) setError(field);
      else props.onDone(err);
    }
  });
  const busy = cancelling.busy;

  const submit = (e: Event) => {
    e.preventDefault();
    if (!reason.trim()) {
      setError('Say why the task is cancelled (the driver sees it).');
      return;
    }
    cancelling.run(reason.trim());
  };

  return (
    <Dialog id="cancel" class="task-dialog" title={`Cancel ${props.label}`} onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <ReasonField
          id="cancel-reason"
          label="Reason"
          hint="Recorded with the task; the driver sees it."
          value={reason}
          error={error}
          onInput={(v) => {
            setReason(v);
            setError(undefined);
          }}
        />
        <div class="actions">
          <button type="submit" class="danger" disabled={busy}>
            {busy ? 'Cancelling…' : 'Cancel the task'}
          </button>
          <button type="button" onClick={props.onClose}>
            Keep the task
          </button>
        </div>
      </form>
    </Dialog>
  );
}
