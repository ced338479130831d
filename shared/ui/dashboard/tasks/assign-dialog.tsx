import { useState } from 'preact/hooks';
import { Dialog } from '../../common/components/dialog';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { availabilityWords, driverLabel, pickerOrder } from './driver-words';
import { patchTask } from './task-api';
import type { DriverAvailability } from './task-data';
import type { Task } from './task-words';

/** Assign or reassign a task: the yard drivers with where each stands (on shift, busy, off shift). */
export function AssignDialog(props: {
  task: Task;
  label: string;
  yardId: string;
  drivers: DriverAvailability[];
  onClose: () => void;
  onDone: (err?: unknown, driverId?: string) => void;
}) {
  const choices = pickerOrder(props.drivers, props.yardId).filter((d) => d.driverId !== props.task.driverId);
  const [driverId, setDriverId] = useState(choices[0]?.driverId ?? '');
  const [error, setError] = useState<string | undefined>();
  const assigning = useSubmit(async (id: string) => {
    try {
      await patchTask(props.task, { driverId: id });
      props.onDone(undefined, id);
    } catch (err) {
      props.onDone(err);
    }
  });
  const busy = assigning.busy;
  const chosen = choices.find((d) => d.driverId === driverId);
  const warn =
    chosen && (chosen.availability === 'offline' || chosen.session?.yardId !== props.yardId)
      ? `${driverLabel(chosen)} is not on shift in this yard: the task waits until they start a shift here.`
      : null;

  const submit = (e: Event) => {
    e.preventDefault();
    if (!driverId) {
      setError('Choose a driver.');
      return;
    }
    assigning.run(driverId);
  };

  const verb = props.task.driverId ? 'Reassign' : 'Assign';
  return (
    <Dialog id="assign" class="task-dialog" title={`${verb} ${props.label}`} onClose={props.onClose}>
      {choices.length === 0 ? (
        <>
          <p>No other yard driver is registered. An admin adds drivers under Master data → Drivers.</p>
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field id="assign-driver" label="Driver" error={error} hint="On shift and available first.">
            <select
              {...describedBy('assign-driver', error, true)}
              value={driverId}
              onChange={(e) => {
                setDriverId(e.currentTarget.value);
                setError(undefined);
              }}
            >
              {choices.map((d) => (
                <option key={d.driverId} value={d.driverId}>
                  {driverLabel(d)}: {availabilityWords(d, props.yardId)}
                </option>
              ))}
            </select>
          </Field>
          {warn && <FormMessage kind="warn">{warn}</FormMessage>}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Saving…' : `${verb} to this driver`}
            </button>
            <button type="button" onClick={props.onClose}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
