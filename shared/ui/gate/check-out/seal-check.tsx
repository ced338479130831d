import type { Ref } from 'preact';
import { describedBy, Field } from '../../common/components/field';
import { checkSeal, needsAcknowledgement } from './seal';

/**
 * The seal recorded for the trailer against the one on the unit. A match turns green; a difference
 * (or no seal typed where one was recorded) is a warning the clerk must acknowledge, with a note.
 */
export function SealCheck(props: {
  recorded: string | null;
  seal: string;
  onSeal: (v: string) => void;
  /**
   * Show a difference once the clerk tried to check out, not while typing nor on leaving the field
   * (a warning that appears on blur moves the button away from under the pointer).
   */
  judged: boolean;
  acknowledged: boolean;
  onAcknowledged: (v: boolean) => void;
  sealError?: string | undefined;
  ackError?: string | undefined;
  ackRef: Ref<HTMLInputElement>;
}) {
  const check = checkSeal(props.recorded, props.seal);
  const warn = props.judged && needsAcknowledgement(check);
  return (
    <fieldset class="seal">
      <legend>Seal</legend>
      <p class="recorded">
        Recorded for this trailer:{' '}
        {props.recorded ? <strong class="mono">{props.recorded}</strong> : 'no seal'}
      </p>
      <Field id="seal" label="Seal on the unit" error={props.sealError}>
        <input
          {...describedBy('seal', props.sealError)}
          aria-describedby={props.sealError ? 'seal-error' : 'seal-state'}
          class={check === 'match' ? 'mono seal-ok' : 'mono'}
          value={props.seal}
          autoComplete="off"
          onInput={(e) => props.onSeal(e.currentTarget.value)}
        />
      </Field>
      <div id="seal-state" aria-live="polite">
        {check === 'match' && <p class="badge ok">✓ Seal matches</p>}
        {check === 'new' && (
          <p class="muted">No seal was recorded; this one is recorded with the check-out.</p>
        )}
        {check === 'none' && <p class="muted">No seal to verify.</p>}
        {warn && (
          <div
            class={props.ackError ? 'message warn seal-warning has-error' : 'message warn seal-warning'}
            role="alert"
          >
            <strong>
              {check === 'mismatch'
                ? `Seal mismatch: the unit carries ${props.seal.trim()}, but ${props.recorded} was recorded.`
                : `No seal typed, but ${props.recorded} was recorded.`}
            </strong>{' '}
            Read the seal again. If it really differs (or is missing), tick below: the difference is recorded
            with the check-out.
            <label class="ack">
              <input
                type="checkbox"
                ref={props.ackRef}
                checked={props.acknowledged}
                aria-invalid={props.ackError ? true : undefined}
                aria-describedby={props.ackError ? 'seal-ack-error' : undefined}
                onChange={(e) => props.onAcknowledged(e.currentTarget.checked)}
              />{' '}
              I checked the seal: check out anyway
            </label>
            {props.ackError && (
              <small id="seal-ack-error" class="error">
                {props.ackError}
              </small>
            )}
          </div>
        )}
      </div>
    </fieldset>
  );
}
