import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field, FormMessage } from '../../common/components/field';

type Actuation = Schemas['GateActuation'];

/**
 * "Open the gate": asks why (required, recorded in the audit), Enter confirms, Esc cancels; then
 * says what the relay did. A native modal <dialog> keeps the focus inside and gives Esc.
 */
export function OpenDialog(props: {
  gate: { id: string; name: string; simulated: boolean };
  onClose: () => void;
  /** After any answer (the audit has a new record, whatever the gate did). */
  onAnswered: (result: { actuation?: Actuation; problem?: ProblemError }) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Actuation | null>(null);
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  useEffect(() => {
    if (done) closeRef.current?.focus();
  }, [done]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!reason.trim()) {
      setError('Say why the gate is opened by hand (it is recorded).');
      return;
    }
    setBusy(true);
    setError(undefined);
    setProblem(null);
    try {
      const actuation = await call(
        api.POST('/api/hardware/gate/{gateId}/actuate', {
          params: { path: { gateId: props.gate.id } },
          body: { reason: reason.trim() },
        }),
      );
      setDone(actuation);
      props.onAnswered({ actuation });
    } catch (err) {
      const p = err instanceof ProblemError ? err : null;
      setProblem(p);
      setError(p?.fieldErrors().reason);
      if (p) props.onAnswered({ problem: p });
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      class="dialog open-dialog"
      aria-labelledby="open-heading"
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <h2 id="open-heading">Open {props.gate.name}</h2>
      {done ? (
        <>
          <FormMessage kind="ok">
            {props.gate.name} opened{props.gate.simulated ? ' (simulated relay: no barrier moved)' : ''}. The
            opening is recorded with your reason.
          </FormMessage>
          <button type="button" class="primary" ref={closeRef} onClick={props.onClose}>
            Close
          </button>
        </>
      ) : (
        <form onSubmit={submit}>
          {problem && !problem.fieldErrors().reason && (
            <FormMessage kind="error">{actuationProblemText(problem)}</FormMessage>
          )}
          <Field id="open-reason" label="Reason" error={error} hint="Recorded in the gate's audit log.">
            <input
              {...describedBy('open-reason', error, true)}
              value={reason}
              maxLength={500}
              aria-required="true"
              autoComplete="off"
              placeholder="e.g. plate unreadable, driver at the barrier"
              onInput={(e) => {
                setReason(e.currentTarget.value);
                setError(undefined);
              }}
            />
          </Field>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Opening…' : 'Open the gate'}
            </button>
            <button type="button" onClick={props.onClose}>
              Cancel <kbd>Esc</kbd>
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

/** What each refusal means at the desk, and what to do. */
export function actuationProblemText(p: ProblemError): string {
  switch (p.code) {
    case 'rate-limited':
      return `${p.message} The limit protects the barrier motor.`;
    case 'gate-busy':
      return 'The gate is opening right now. Wait a moment, then try again if it did not open.';
    case 'hardware-fault':
      return `The relay did not answer: ${p.message} Open the gate by hand and call maintenance.`;
    case 'no-relay':
      return 'This gate has no relay: open it by hand.';
    case 'site-offline':
      return 'The site did not answer in time; the gate will not open later. Try again or call the gate.';
    default:
      return p.message;
  }
}
