import { useState } from 'preact/hooks';
import { Dialog } from '../../common/components/dialog';
import { FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';

/** The quick reasons a driver gives for not doing a task; "Other" asks for a few words. */
export const CANCEL_REASONS = [
  { id: 'damaged', text: 'Trailer damaged' },
  { id: 'blocked', text: 'Spot blocked' },
  { id: 'not-found', text: 'Trailer not found' },
  { id: 'other', text: 'Other' },
] as const;

export type ReasonId = (typeof CANCEL_REASONS)[number]['id'];

/** The reason as the office reads it; null while "Other" has no words yet. */
export function cancelReasonText(id: ReasonId | null, other: string): string | null {
  if (!id) return null;
  if (id === 'other') {
    const words = other.trim();
    return words ? `Other: ${words}` : null;
  }
  return CANCEL_REASONS.find((r) => r.id === id)?.text ?? null;
}

/**
 * Cancel with a reason, in the one modal Dialog (focus stays inside, Esc closes it):
 * one tap on a big reason, then "Cancel task". "Keep task" goes back.
 */
export function CancelDialog(props: {
  title: string;
  onCancel: (reason: string) => Promise<void>;
  onClose: () => void;
}) {
  const [reason, setReason] = useState<ReasonId | null>(null);
  const [other, setOther] = useState('');
  const [missing, setMissing] = useState(false);
  const cancel = useSubmit(async (text: string) => {
    await props.onCancel(text);
    props.onClose();
  });
  const submit = (e: Event) => {
    e.preventDefault();
    const text = cancelReasonText(reason, other);
    if (!text) {
      setMissing(true);
      return;
    }
    void cancel.run(text);
  };
  return (
    <Dialog id="cancel" class="cancel-dialog" title="Cancel this task?" onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>{props.title}</p>
        <fieldset>
          <legend>Why?</legend>
          {CANCEL_REASONS.map((r) => (
            <label key={r.id} class={reason === r.id ? 'reason chosen' : 'reason'}>
              <input
                type="radio"
                name="reason"
                value={r.id}
                checked={reason === r.id}
                onChange={() => {
                  setReason(r.id);
                  setMissing(false);
                }}
              />
              {r.text}
            </label>
          ))}
        </fieldset>
        {reason === 'other' && (
          <div class="field">
            <label for="cancel-other">What is wrong?</label>
            <input
              id="cancel-other"
              maxLength={400}
              value={other}
              onInput={(e) => {
                setOther(e.currentTarget.value);
                setMissing(false);
              }}
            />
          </div>
        )}
        {missing && (
          <FormMessage kind="error">
            {reason === 'other' ? 'Say in a few words what is wrong.' : 'Choose a reason.'}
          </FormMessage>
        )}
        <div class="dialog-actions">
          <button type="submit" class="danger big" disabled={cancel.busy}>
            Cancel task
          </button>
          <button type="button" class="big" onClick={props.onClose}>
            Keep task
          </button>
        </div>
      </form>
    </Dialog>
  );
}
