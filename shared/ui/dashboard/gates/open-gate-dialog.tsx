import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { actuationProblemWords, type GateContext } from './gate-words';

type Actuation = Schemas['GateActuation'];

/**
 * "Open the gate" from the office: asks why (required, recorded in the gate's audit), then says what
 * happened at the gate. At the cloud the site's edge pulses the relay; its answer comes back as is.
 * A native modal <dialog> keeps the focus inside and gives Esc.
 */
export function OpenGateDialog(props: {
  gateId: string;
  context: GateContext;
  simulated: boolean;
  onClose: () => void;
  /** After any answer: the audit may have a new record, whatever the gate did. */
  onAnswered: (result: { actuation?: Actuation; problem?: ProblemError }) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const { gate } = props.context;

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
      setError('Say why the gate is opened from the office (it is recorded).');
      return;
    }
    setBusy(true);
    setError(undefined);
    setProblem(null);
    try {
      const actuation = await call(
        api.POST('/api/hardware/gate/{gateId}/actuate', {
          params: { path: { gateId: props.gateId } },
          body: { reason: reason.trim() },
        }),
      );
      setDone(true);
      props.onAnswered({ actuation });
    } catch (err) {
      const p = err instanceof ProblemError ? err : null;
      setProblem(p);
      setError(p?.fieldErrors().reason);
      props.onAnswered(p ? { problem: p } : {});
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      class="dialog open-gate-dialog"
      aria-labelledby="open-gate-heading"
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <h2 id="open-gate-heading">Open {gate}</h2>
      {done ? (
        <>
          <FormMessage kind="ok">
            {gate} opened{props.simulated ? ' (simulated relay: no barrier moved)' : ''}. The opening is
            recorded with your reason.
          </FormMessage>
          <button type="button" class="primary" ref={closeRef} onClick={props.onClose}>
            Close
          </button>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          {problem && !problem.fieldErrors().reason && (
            <FormMessage kind="error">{actuationProblemWords(problem, props.context)}</FormMessage>
          )}
          <Field
            id="open-gate-reason"
            label="Reason"
            error={error}
            hint="Recorded in the gate's opening log."
          >
            <input
              {...describedBy('open-gate-reason', error, true)}
              value={reason}
              maxLength={500}
              aria-required="true"
              autoComplete="off"
              placeholder="e.g. driver at the barrier, plate unreadable"
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
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
