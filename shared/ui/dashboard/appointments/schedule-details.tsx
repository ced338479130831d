import { useEffect, useState } from 'preact/hooks';
import { Dialog } from '../../common/components/dialog';
import { FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import { ReasonField } from '../reason-field';
import { type Appointment, cancel } from './schedule-data';
import { clock, isCancellable, isMovable, scheduleProblemText, statusText } from './schedule-words';

/**
 * One appointment's facts (time, door, carrier, load, refs, trailer, status with its times) and,
 * for those who may, cancelling it with a reason (kept in its history, shown to the carrier).
 */
export function DetailsDialog(props: {
  appointment: Appointment;
  timeZone: string;
  mayEdit: boolean;
  onClose: () => void;
  onCancelled: (a: Appointment) => void;
}) {
  const a = props.appointment;
  const tz = props.timeZone;
  const [cancelling, setCancelling] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<string | null>(null);
  const sending = useSubmit(async (why: string) => {
    try {
      props.onCancelled(await cancel(a, why));
    } catch (err) {
      setMessage(scheduleProblemText(err, tz));
    }
  });
  // The reason field takes the focus when it appears, so the keyboard goes on where the eyes go.
  useEffect(() => {
    if (cancelling) document.getElementById('dock-cancel-reason')?.focus();
  }, [cancelling]);
  const facts: [string, string | null][] = [
    ['Time', `${clock(a.startAt, tz)} to ${clock(a.endAt, tz)} (${yardDateTime(a.startAt, tz)})`],
    ['Door', a.doorName],
    ['Carrier', a.carrierName],
    ['Load type', a.loadTypeName],
    ['Status', statusText(a)],
    ['Code', a.code],
    ['Order or bill of lading numbers', a.refs.join(', ') || null],
    ['Trailer', a.trailerNumber],
    ['Truck', a.truckPlate],
    ['Driver', [a.driverName, a.driverPhone].filter(Boolean).join(', ') || null],
    ['Notes', a.notes],
    ['Booked outside the rules because', a.overrideReason],
    ['Arrived', a.arrivedAt && yardDateTime(a.arrivedAt, tz)],
    ['At the door', a.dockedAt && yardDateTime(a.dockedAt, tz)],
    ['Completed', a.completedAt && yardDateTime(a.completedAt, tz)],
    ['Cancelled', a.cancelledAt && `${yardDateTime(a.cancelledAt, tz)}: ${a.cancelReason ?? ''}`],
  ];

  const submit = (e: Event) => {
    e.preventDefault();
    if (!reason.trim()) {
      setError('Say why the appointment is cancelled (the carrier is told).');
      return;
    }
    setMessage(null);
    void sending.run(reason.trim());
  };

  return (
    <Dialog
      id="dock-details"
      class="dock-dialog"
      title={`${a.carrierName} at ${a.doorName}, ${clock(a.startAt, tz)}`}
      onClose={props.onClose}
    >
      <dl class="dock-facts">
        {facts
          .filter(([, v]) => v)
          .map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
      </dl>
      {props.mayEdit && isMovable(a) && (
        <p class="muted">To move it, focus its block on the schedule and use the arrow keys, or drag it.</p>
      )}
      {cancelling ? (
        <form onSubmit={submit} noValidate>
          <ReasonField
            id="dock-cancel-reason"
            label="Reason for cancelling"
            hint="Kept with the appointment; the carrier is told."
            value={reason}
            error={error}
            onInput={(v) => {
              setReason(v);
              setError(undefined);
            }}
          />
          {message && <FormMessage kind="error">{message}</FormMessage>}
          <div class="actions">
            <button type="submit" class="danger" disabled={sending.busy}>
              {sending.busy ? 'Cancelling…' : 'Cancel the appointment'}
            </button>
            <button type="button" onClick={() => setCancelling(false)}>
              Keep it
            </button>
          </div>
        </form>
      ) : (
        <div class="actions">
          {props.mayEdit && isCancellable(a) && (
            <button type="button" class="danger" onClick={() => setCancelling(true)}>
              Cancel appointment…
            </button>
          )}
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      )}
    </Dialog>
  );
}
