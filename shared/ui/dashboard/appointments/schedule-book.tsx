import { useEffect, useMemo, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { Dialog } from '../../common/components/dialog';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { carriers, loadCarriers } from '../records/lookups';
import { BookTime, type BookErrors as Errors, slotLabels } from './schedule-book-time';
import { type Appointment, book, type Door, type FreeSlot, freeSlots, type LoadType } from './schedule-data';
import { instantOf } from './schedule-layout';
import { scheduleProblemText } from './schedule-words';

/**
 * Book an appointment on the shown day from its free times (the availability of the chosen load
 * type): load type, time, door (else the first free one), carrier, refs, trailer, notes. When the
 * time was taken meanwhile the dialog says which times are still free and offers them.
 */
export function BookDialog(props: {
  yardId: string;
  date: string;
  timeZone: string;
  dateLabel: string;
  loadTypes: LoadType[];
  doors: Door[];
  onClose: () => void;
  onBooked: (a: Appointment) => void;
}) {
  const tz = props.timeZone;
  const [loadTypeId, setLoadTypeId] = useState(props.loadTypes[0]?.id ?? '');
  const [slots, setSlots] = useState<FreeSlot[] | null>(null);
  const [slotsProblem, setSlotsProblem] = useState<string | null>(null);
  const [startAt, setStartAt] = useState('');
  const [doorId, setDoorId] = useState('');
  const [carrierId, setCarrierId] = useState('');
  const [refs, setRefs] = useState('');
  const [trailerNumber, setTrailerNumber] = useState('');
  const [notes, setNotes] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [message, setMessage] = useState<string | null>(null);
  // Office override (docs/domain.md "Booking rules"): any time and door, outside the grid, hours,
  // closed dates, lead time and allowed doors, with a reason kept in the history; never over capacity.
  const [override, setOverride] = useState(false);
  const [reason, setReason] = useState('');
  const [wallTime, setWallTime] = useState('');

  useEffect(() => void loadCarriers(), []);
  const loadSlots = async (id: string, keep?: string) => {
    setSlots(null);
    setSlotsProblem(null);
    if (!id) {
      setSlots([]);
      return;
    }
    try {
      const free = await freeSlots(props.yardId, id, props.date);
      setSlots(free);
      setStartAt(keep && free.some((s) => s.startAt === keep) ? keep : '');
      setDoorId('');
    } catch (err) {
      setSlotsProblem(scheduleProblemText(err, tz));
    }
  };
  useEffect(() => void loadSlots(loadTypeId), [loadTypeId]);

  const slot = slots?.find((s) => s.startAt === startAt);
  const labels = useMemo(() => (slots ? slotLabels(slots, tz) : []), [slots, tz]);
  const saving = useSubmit(async () => {
    try {
      const a = await book({
        yardId: props.yardId,
        loadTypeId,
        startAt: override ? instantOf(props.date, wallTime, tz) : startAt,
        ...(doorId ? { doorId } : {}),
        ...(override ? { override: { reason: reason.trim() } } : {}),
        carrierId,
        refs: refs
          .split(/[,;\n]/)
          .map((r) => r.trim())
          .filter(Boolean),
        trailerNumber: trailerNumber.trim() || null,
        notes: notes.trim() || null,
      });
      props.onBooked(a);
    } catch (err) {
      if (err instanceof ProblemError && err.code === 'validation-failed') {
        setErrors(err.fieldErrors() as Errors);
        setMessage(err.message);
      } else {
        setMessage(scheduleProblemText(err, tz));
        // The slot went meanwhile: offer what is still free.
        if (err instanceof ProblemError && err.code === 'slot-taken') void loadSlots(loadTypeId);
      }
    }
  });

  const submit = (e: Event) => {
    e.preventDefault();
    const missing: Errors = {};
    if (!loadTypeId) missing.loadTypeId = 'Choose the load type.';
    if (override) {
      if (!/^\d\d:\d\d$/.test(wallTime)) missing.startAt = 'Enter the time, e.g. 14:30.';
      if (reason.trim().length < 3) missing['override.reason'] = 'Say why this booking is outside the rules.';
    } else if (!startAt) missing.startAt = 'Choose one of the free times.';
    if (!carrierId) missing.carrierId = 'Choose the carrier.';
    setErrors(missing);
    setMessage(null);
    if (Object.keys(missing).length === 0) void saving.run();
  };

  return (
    <Dialog
      id="dock-book"
      class="dock-dialog"
      title={`Book a dock appointment, ${props.dateLabel}`}
      onClose={props.onClose}
    >
      <form onSubmit={submit} noValidate>
        {props.loadTypes.length === 0 && (
          <FormMessage kind="warn">
            This yard has no load types yet: add one under the load types first.
          </FormMessage>
        )}
        <Field id="book-load-type" label="Load type" error={errors.loadTypeId}>
          <select
            {...describedBy('book-load-type', errors.loadTypeId)}
            value={loadTypeId}
            onChange={(e) => setLoadTypeId(e.currentTarget.value)}
          >
            {props.loadTypes.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.durationMinutes} min)
              </option>
            ))}
          </select>
        </Field>
        <label class="dock-override">
          <input
            type="checkbox"
            checked={override}
            onChange={(e) => {
              setOverride(e.currentTarget.checked);
              setDoorId('');
              setErrors({});
            }}
          />{' '}
          Book outside the booking rules (any time and door; a reason is recorded)
        </label>
        <BookTime
          override={override}
          wallTime={wallTime}
          onWallTime={setWallTime}
          reason={reason}
          onReason={setReason}
          errors={errors}
          slots={slots}
          labels={labels}
          startAt={startAt}
          onStartAt={(value) => {
            setStartAt(value);
            setDoorId('');
          }}
        />
        {slotsProblem && <FormMessage kind="error">{slotsProblem}</FormMessage>}
        <Field id="book-door" label="Door" error={errors.doorId}>
          <select
            {...describedBy('book-door', errors.doorId)}
            value={doorId}
            disabled={!override && !slot}
            onChange={(e) => setDoorId(e.currentTarget.value)}
          >
            <option value="">The first free door</option>
            {(override ? props.doors : (slot?.doors ?? [])).map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="book-carrier" label="Carrier" error={errors.carrierId}>
          <select
            {...describedBy('book-carrier', errors.carrierId)}
            value={carrierId}
            onChange={(e) => setCarrierId(e.currentTarget.value)}
          >
            <option value="">
              {carriers.value === null ? 'Loading the carriers…' : 'Choose the carrier'}
            </option>
            {(carriers.value ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </Field>
        <Field
          id="book-refs"
          label="Order or bill of lading numbers"
          error={errors.refs}
          hint="Separate several with commas."
        >
          <input
            {...describedBy('book-refs', errors.refs, true)}
            value={refs}
            autoComplete="off"
            onInput={(e) => setRefs(e.currentTarget.value)}
          />
        </Field>
        <Field id="book-trailer" label="Trailer number" error={errors.trailerNumber} hint="If known.">
          <input
            {...describedBy('book-trailer', errors.trailerNumber, true)}
            value={trailerNumber}
            maxLength={20}
            autoComplete="off"
            onInput={(e) => setTrailerNumber(e.currentTarget.value)}
          />
        </Field>
        <Field id="book-notes" label="Notes" error={errors.notes}>
          <textarea
            {...describedBy('book-notes', errors.notes)}
            value={notes}
            maxLength={1000}
            rows={2}
            onInput={(e) => setNotes(e.currentTarget.value)}
          />
        </Field>
        {message && <FormMessage kind="error">{message}</FormMessage>}
        <div class="actions">
          <button type="submit" class="primary" disabled={saving.busy}>
            {saving.busy ? 'Booking…' : 'Book'}
          </button>
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      </form>
    </Dialog>
  );
}
