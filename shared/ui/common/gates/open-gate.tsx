import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ProblemError } from '../api/problem';
import { Dialog } from '../components/dialog';
import { describedBy, Field, FormMessage } from '../components/field';
import { useSubmit } from '../use-submit';
import { type Actuation, actuateGate } from './data';
import { type GateView, retryAtFrom } from './gate-view';

export interface OpenGate {
  id: string;
  name: string;
  /** A simulated relay: the answer says no barrier moved. */
  simulated: boolean;
}

export interface Answer {
  actuation?: Actuation;
  problem?: ProblemError;
}

/** What the dialog says where it is used: the gate house (barrier in sight) or the office. */
export interface OpenGateWords {
  /** Said when the reason is left empty. */
  ask: string;
  hint: string;
  placeholder: string;
  /** A refused or failed opening, in words: what happened and what to do now. */
  problem: (p: ProblemError) => string;
  /** Show the Esc key beside Cancel (the gate house is keyboard first). */
  escKey?: boolean;
}

/**
 * "Open the gate": asks why (required, recorded in the gate's audit), Enter confirms, Esc cancels;
 * then says what the relay did (at the cloud the site's edge pulses it and its answer comes back).
 */
export function OpenGateDialog(props: {
  /** The dialog's id: `${id}-heading`, `${id}-reason`. */
  id: string;
  class: string;
  gate: OpenGate;
  words: OpenGateWords;
  onClose: () => void;
  /** After any answer: the audit may have a new record, whatever the gate did. */
  onAnswered: (answer: Answer) => void;
}) {
  const { gate, words } = props;
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState(false);
  const closeRef = useRef<HTMLButtonElement>(null);
  const open = useSubmit(async (why: string) => {
    try {
      const actuation = await actuateGate(gate.id, why);
      props.onAnswered({ actuation });
      return actuation;
    } catch (err) {
      const p = err instanceof ProblemError ? err : undefined;
      setError(p?.fieldErrors().reason);
      props.onAnswered(p ? { problem: p } : {});
      throw err;
    }
  });
  useEffect(() => {
    if (done) closeRef.current?.focus();
  }, [done]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!reason.trim()) {
      setError(words.ask);
      return;
    }
    setError(undefined);
    if (await open.run(reason.trim())) setDone(true);
  };
  const reasonId = `${props.id}-reason`;

  return (
    <Dialog id={props.id} class={props.class} title={`Open ${gate.name}`} onClose={props.onClose}>
      {done ? (
        <>
          <FormMessage kind="ok">
            {gate.name} opened{gate.simulated ? ' (simulated relay: no barrier moved)' : ''}. The opening is
            recorded with your reason.
          </FormMessage>
          <button type="button" class="primary" ref={closeRef} onClick={props.onClose}>
            Close
          </button>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          {open.problem && !open.problem.fieldErrors().reason && (
            <FormMessage kind="error">{words.problem(open.problem)}</FormMessage>
          )}
          {open.failed && <FormMessage kind="error">Something went wrong. Try again.</FormMessage>}
          <Field id={reasonId} label="Reason" error={error} hint={words.hint}>
            <input
              {...describedBy(reasonId, error, true)}
              value={reason}
              maxLength={500}
              aria-required="true"
              autoComplete="off"
              placeholder={words.placeholder}
              onInput={(e) => {
                setReason(e.currentTarget.value);
                setError(undefined);
              }}
            />
          </Field>
          <div class="actions">
            <button type="submit" class="primary" disabled={open.busy}>
              {open.busy ? 'Opening…' : 'Open the gate'}
            </button>
            <button type="button" onClick={props.onClose}>
              Cancel{words.escKey ? ' ' : ''}
              {words.escKey && <kbd>Esc</kbd>}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

/**
 * A rate limit on a gate: a 429 answer says when it may be tried again, and one timer turns the
 * button on again then (no polling). `now` is the instant the view is drawn for.
 */
export function useRetryAt() {
  const [retryAt, setRetryAt] = useState<number | undefined>();
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (retryAt === undefined) return;
    const t = setTimeout(() => setNow(Date.now()), Math.max(0, retryAt - Date.now()) + 50);
    return () => clearTimeout(t);
  }, [retryAt]);
  const noteAnswer = useCallback((answer: Answer) => {
    if (answer.problem?.code === 'rate-limited')
      setRetryAt(retryAtFrom(answer.problem.problem.retryAfterSec, Date.now()));
  }, []);
  return { retryAt, now: Math.max(now, Date.now()), noteAnswer };
}

/**
 * A gate's Open button, the reason it is off (described by), and its dialog. Focus goes back to the
 * button when the dialog closes (Dialog). `class` prefixes the card's own classes (`lane-open`,
 * `gate-open`).
 */
export function OpenGateButton(props: {
  gate: OpenGate;
  open: GateView['open'];
  /** The card's class prefix and the id of the reason paragraph. */
  class: string;
  whyId: string;
  dialog: { id: string; class: string; words: OpenGateWords };
  onAnswered: (answer: Answer) => void;
}) {
  const [dialog, setDialog] = useState(false);
  const { gate, open } = props;
  // The dialog is not inside the button's box: the card's CSS for its Open button must not reach it.
  return (
    <>
      <div class={`${props.class}-open`}>
        <button
          type="button"
          class="primary"
          disabled={!open.enabled}
          aria-describedby={open.why ? props.whyId : undefined}
          onClick={() => setDialog(true)}
        >
          Open {gate.name}
        </button>
        {open.why && (
          <p id={props.whyId} class={`${props.class}-why`}>
            {open.why}
          </p>
        )}
      </div>
      {dialog && (
        <OpenGateDialog
          id={props.dialog.id}
          class={props.dialog.class}
          gate={gate}
          words={props.dialog.words}
          onClose={() => setDialog(false)}
          onAnswered={props.onAnswered}
        />
      )}
    </>
  );
}
