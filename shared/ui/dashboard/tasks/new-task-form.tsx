import { useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { TypeAhead } from '../../common/components/type-ahead';
import { rankTrailers } from '../../common/type-ahead-rank';
import { useSubmit } from '../../common/use-submit';
import { availabilityWords, driverLabel, pickerOrder } from './driver-words';
import { createTask, findTrailersInYard } from './task-api';
import type { DriverAvailability, Location } from './task-data';
import {
  type CreateField,
  createFieldErrors,
  MOVES_A_TRAILER,
  PRIORITY_WORDS,
  type Task,
  TYPE_WORDS,
  taskProblemWords,
} from './task-words';

type Trailer = Schemas['Trailer'];
type Errors = Partial<Record<CreateField, string>>;

/** A refusal that names one field by its code (the record it points at is not usable here). */
const FIELD_OF_CODE: Record<string, CreateField> = {
  'trailer-not-in-yard': 'trailerId',
  'not-a-yard-driver': 'driverId',
  'driver-blocked': 'driverId',
};

const KIND_WORDS: Record<Location['kind'], string> = {
  door: 'Doors',
  spot: 'Spots',
  staging: 'Staging',
  zone: 'Zones',
};

/**
 * A new yard task: type, trailer (type-ahead over the trailers in this yard), from and to, priority,
 * notes and, optionally, a driver at once. The server checks everything; its field errors land on
 * the fields, anything else above the form.
 */
export function NewTaskForm(props: {
  yardId: string;
  yardName: string;
  locations: Location[];
  drivers: DriverAvailability[];
  onCreated: (task: Task, trailerNumber: string | null) => void;
  onCancel: () => void;
}) {
  const [type, setType] = useState<Task['type']>('move');
  const [trailerText, setTrailerText] = useState('');
  const [trailer, setTrailer] = useState<Trailer | null>(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [priority, setPriority] = useState(1);
  const [notes, setNotes] = useState('');
  const [driverId, setDriverId] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [problem, setProblem] = useState<{ text: string; fieldsOnly: boolean } | null>(null);

  const searchTrailers = async (q: string, signal: AbortSignal) =>
    rankTrailers(await findTrailersInYard(props.yardId, q, signal), q).slice(0, 8);

  const creating = useSubmit(async (body: Schemas['YardTaskCreate']) => {
    try {
      props.onCreated(await createTask(body), trailer?.number ?? null);
    } catch (err) {
      const byField = createFieldErrors(err);
      const coded = err instanceof ProblemError ? FIELD_OF_CODE[err.code] : undefined;
      if (coded && err instanceof ProblemError) byField[coded] = err.message;
      setErrors(byField);
      // "See the messages next to them" goes once every field it pointed at is changed.
      setProblem({
        text: taskProblemWords(err),
        fieldsOnly: err instanceof ProblemError && err.code === 'validation-failed',
      });
    }
  });
  const busy = creating.busy;

  const submit = async (e: Event) => {
    e.preventDefault();
    // A number typed but not picked from the list names no trailer: say so before asking the server.
    if (trailerText.trim() && !trailer) {
      setErrors({ trailerId: 'Pick the trailer from the list (only trailers in this yard can be moved).' });
      return;
    }
    setErrors({});
    setProblem(null);
    await creating.run({
      yardId: props.yardId,
      type,
      trailerId: trailer?.id ?? null,
      fromLocationId: from || null,
      toLocationId: to || null,
      priority,
      notes: notes.trim() || null,
      driverId: driverId || null,
    });
  };

  const places = props.locations.filter((l) => l.status === 'active');
  // A move needs its trailer and destination (the API says so on the fields if they are missing).
  const moves = MOVES_A_TRAILER.has(type);
  const optional = moves ? '' : ' (optional)';
  const kinds = [...new Set(places.map((l) => l.kind))];
  const placeSelect = (id: string, value: string, set: (v: string) => void, field: CreateField) => (
    <select
      {...describedBy(id, errors[field], field === 'fromLocationId')}
      value={value}
      onChange={(e) => {
        set(e.currentTarget.value);
        setErrors((x) => ({ ...x, [field]: undefined }));
      }}
    >
      <option value="">Not set</option>
      {kinds.map((k) => (
        <optgroup key={k} label={KIND_WORDS[k]}>
          {places
            .filter((l) => l.kind === k)
            .map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
        </optgroup>
      ))}
    </select>
  );

  return (
    <form class="panel new-task" onSubmit={submit} noValidate aria-labelledby="new-task-heading">
      <h1 id="new-task-heading">New task in {props.yardName}</h1>
      {problem && !(problem.fieldsOnly && Object.values(errors).every((e) => !e)) && (
        <FormMessage kind="error">{problem.text}</FormMessage>
      )}
      <div class="new-task-grid">
        <Field id="nt-type" label="Type" error={errors.type}>
          <select
            {...describedBy('nt-type', errors.type)}
            value={type}
            onChange={(e) => {
              setType(e.currentTarget.value as Task['type']);
              setErrors((x) => ({ ...x, type: undefined }));
            }}
          >
            {Object.entries(TYPE_WORDS).map(([value, words]) => (
              <option key={value} value={value}>
                {words}
              </option>
            ))}
          </select>
        </Field>
        <Field
          id="nt-trailer"
          label={`Trailer${optional}`}
          error={errors.trailerId}
          hint={
            trailer ? `Trailer ${trailer.number}, in this yard.` : 'Type its number; trailers in this yard.'
          }
        >
          <TypeAhead
            id="nt-trailer"
            text={trailerText}
            onText={(t) => {
              setTrailerText(t);
              setTrailer(null);
              setErrors((x) => ({ ...x, trailerId: undefined }));
            }}
            search={searchTrailers}
            itemKey={(t) => t.id}
            renderItem={(t) => (
              <>
                <strong>{t.number}</strong> <span class="muted">{t.type.replace('_', ' ')}</span>
              </>
            )}
            onSelect={(t) => {
              setTrailer(t);
              setTrailerText(t.number);
            }}
            invalid={Boolean(errors.trailerId)}
            describedBy={describedBy('nt-trailer', errors.trailerId, true)['aria-describedby']}
            placeholder="e.g. PRFU 482113"
            maxLength={40}
          />
        </Field>
        <Field
          id="nt-from"
          label="From (optional)"
          error={errors.fromLocationId}
          hint="Not set: where the trailer stands now."
        >
          {placeSelect('nt-from', from, setFrom, 'fromLocationId')}
        </Field>
        <Field id="nt-to" label={`To${optional}`} error={errors.toLocationId}>
          {placeSelect('nt-to', to, setTo, 'toLocationId')}
        </Field>
        <Field id="nt-priority" label="Priority" error={errors.priority}>
          <select
            {...describedBy('nt-priority', errors.priority)}
            value={priority}
            onChange={(e) => {
              setPriority(Number(e.currentTarget.value));
              setErrors((x) => ({ ...x, priority: undefined }));
            }}
          >
            {PRIORITY_WORDS.map((w, i) => (
              <option key={w} value={i}>
                {w}
              </option>
            ))}
          </select>
        </Field>
        <Field
          id="nt-driver"
          label="Driver (optional)"
          error={errors.driverId}
          hint="Leave it to the queue, or assign at once."
        >
          <select
            {...describedBy('nt-driver', errors.driverId, true)}
            value={driverId}
            onChange={(e) => {
              setDriverId(e.currentTarget.value);
              setErrors((x) => ({ ...x, driverId: undefined }));
            }}
          >
            <option value="">Nobody: queue it</option>
            {pickerOrder(props.drivers, props.yardId).map((d) => (
              <option key={d.driverId} value={d.driverId}>
                {driverLabel(d)}: {availabilityWords(d, props.yardId)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field id="nt-notes" label="Notes (optional)" error={errors.notes} hint="What the driver should know.">
        <textarea
          {...describedBy('nt-notes', errors.notes, true)}
          rows={3}
          value={notes}
          onInput={(e) => {
            setNotes(e.currentTarget.value);
            setErrors((x) => ({ ...x, notes: undefined }));
          }}
        />
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create the task'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Back to the list
        </button>
      </div>
    </form>
  );
}
