import type { Schemas } from '../../common/api/client';
import { GateField } from './spot-gate';

/**
 * The foot of the check-in form: the gate that opens, and the one action that records the movement
 * and opens it (Ctrl+Enter and F2 anywhere on the screen do the same), or Clear for the next truck.
 */
export function SubmitRow(props: {
  gateId: string;
  gates: Schemas['Gate'][];
  gateError: string | undefined;
  onGate: (id: string) => void;
  finding: boolean;
  busy: boolean;
  mayWork: boolean;
  onClear: () => void;
}) {
  const label = props.gateId === 'none' ? 'Check in' : 'Check in and open gate';
  return (
    <div class="submit-row">
      <GateField value={props.gateId} gates={props.gates} error={props.gateError} onChange={props.onGate} />
      <button
        type="submit"
        class="primary big"
        disabled={props.busy || !props.mayWork}
        aria-keyshortcuts="Control+Enter F2"
      >
        {props.finding ? 'Finding the appointment…' : props.busy ? 'Checking in…' : label}
        <kbd>Ctrl+Enter</kbd>
        <kbd>F2</kbd>
      </button>
      <button type="button" onClick={props.onClear} disabled={props.busy}>
        Clear
      </button>
    </div>
  );
}
