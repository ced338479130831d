import { useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { problemText } from '../../common/api/problem-text';
import { Dialog } from '../../common/components/dialog';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { PRIORITIES } from '../../common/inventory/labels';
import type { InventoryRow } from '../../common/inventory/rows';
import { useSubmit } from '../../common/use-submit';
import { requestMove } from './data';

type Location = Schemas['Location'];
type Task = Schemas['YardTask'];

const KIND_LABEL: Record<Location['kind'], string> = {
  spot: 'Spots',
  door: 'Doors',
  staging: 'Staging',
  zone: 'Zones',
};

/** Problem codes that are about the destination field although the server names no field. */
const DESTINATION_CODES = new Set(['location-not-in-yard', 'not-found']);

/**
 * A move request for one trailer (a yard task for the drivers): destination from the free places,
 * priority, notes. The one modal Dialog: focus stays inside, Esc cancels, Enter sends.
 */
export function MoveDialog(props: {
  row: InventoryRow;
  yardId: string;
  free: Location[];
  onClose: () => void;
  onCreated: (task: Task) => void;
}) {
  const [to, setTo] = useState('');
  const [priority, setPriority] = useState(1);
  const [notes, setNotes] = useState('');
  const send = useSubmit(async () => {
    const place = props.free.find((l) => l.id === to);
    const task = await requestMove({
      yardId: props.yardId,
      type: place?.kind === 'door' ? 'pull_to_door' : 'move',
      trailerId: props.row.id,
      fromLocationId: props.row.locationId,
      toLocationId: to,
      priority,
      ...(notes.trim() ? { notes: notes.trim() } : {}),
    });
    props.onCreated(task);
    return task;
  });
  const submit = (e: Event) => {
    e.preventDefault();
    void send.run();
  };
  const error = send.problem;
  const busy = send.busy;

  const fields = error?.fieldErrors() ?? {};
  const toError =
    fields.toLocationId ?? (error && DESTINATION_CODES.has(error.code) ? error.message : undefined);
  // Something that is not an answer of the API (a bug, a dropped page) still says what to do.
  const general = send.failed
    ? problemText(undefined)
    : error && !toError && !fields.priority && !fields.notes
      ? problemText(error)
      : null;
  const kinds = (['spot', 'door', 'staging'] as const).filter((k) => props.free.some((l) => l.kind === k));
  return (
    <Dialog id="move" class="move" title={`Move ${props.row.number}`} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p class="muted">
          Now {props.row.spot ? `on ${props.row.spot}` : 'on no spot'}. The request goes to the yard drivers.
        </p>
        {general && <FormMessage kind="error">{general}</FormMessage>}
        {props.free.length === 0 ? (
          <FormMessage kind="warn">
            No spot, door or staging place is free. Free one first, then try again.
          </FormMessage>
        ) : (
          <Field id="move-to" label="Move to" error={toError}>
            <select
              {...describedBy('move-to', toError)}
              value={to}
              required
              onChange={(e) => {
                setTo(e.currentTarget.value);
                send.clear();
              }}
            >
              <option value="">Choose a free place…</option>
              {kinds.map((k) => (
                <optgroup key={k} label={KIND_LABEL[k]}>
                  {props.free
                    .filter((l) => l.kind === k)
                    .map((l) => (
                      <option key={l.id} value={l.id}>
                        {l.name}
                      </option>
                    ))}
                </optgroup>
              ))}
            </select>
          </Field>
        )}
        <Field id="move-priority" label="Priority" error={fields.priority}>
          <select
            {...describedBy('move-priority', fields.priority)}
            value={String(priority)}
            onChange={(e) => setPriority(Number(e.currentTarget.value))}
          >
            {PRIORITIES.map((p) => (
              <option key={p.value} value={String(p.value)}>
                {p.label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="move-notes" label="Notes for the driver (optional)" error={fields.notes}>
          <textarea
            {...describedBy('move-notes', fields.notes)}
            rows={2}
            value={notes}
            onInput={(e) => {
              setNotes(e.currentTarget.value);
              if (fields.notes) send.clear();
            }}
          />
        </Field>
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy || props.free.length === 0}>
            {busy ? 'Sending the request…' : 'Request move'}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel <kbd>Esc</kbd>
          </button>
        </div>
      </form>
    </Dialog>
  );
}
