import { useEffect, useState } from 'preact/hooks';
import { describedBy, Field, FormMessage } from '../common/components/field';
import { useSubmit } from '../common/use-submit';
import { book, context, type FreeSlot, justBooked, type LoadType, loadTypes, type PortalYard } from './data';
import { go, passHref } from './route';
import { SlotPicker } from './slot-picker';
import { dayAndClock, splitRefs } from './words';

type Step = 'yard' | 'load' | 'time' | 'details';

/**
 * Book in at most four steps (UI.md "Carrier portal"): the yard (skipped when there is one), the
 * load type, a day and one of its free times, then refs, trailer and driver with the booking's
 * summary and one "Book" press; the pass opens with the booking's code.
 */
export function Book() {
  const yards = context.value?.yards ?? [];
  const [yard, setYard] = useState<PortalYard | null>(yards.length === 1 ? (yards[0] ?? null) : null);
  const [loadType, setLoadType] = useState<LoadType | null>(null);
  const [slot, setSlot] = useState<FreeSlot | null>(null);
  const types = yard ? (loadTypes.value ?? []).filter((t) => t.yardId === yard.id) : [];

  if (yards.length === 0)
    return (
      <section aria-labelledby="book-heading">
        <h1 id="book-heading">Book a time</h1>
        <FormMessage kind="warn">
          No yard takes bookings from your company here yet. Call the yard to book, or ask it to open bookings
          for you.
        </FormMessage>
      </section>
    );
  const steps: Step[] = yards.length > 1 ? ['yard', 'load', 'time', 'details'] : ['load', 'time', 'details'];
  const step: Step = !yard ? 'yard' : !loadType ? 'load' : !slot ? 'time' : 'details';
  const back = () => {
    if (step === 'details') setSlot(null);
    else if (step === 'time') setLoadType(null);
    else if (step === 'load') setYard(null);
  };
  const number = steps.indexOf(step) + 1;
  const title = {
    yard: 'Which yard?',
    load: 'What is it?',
    time: 'When?',
    details: 'Trailer and references',
  }[step];
  return (
    <section class="book" aria-labelledby="book-heading">
      <h1 id="book-heading">Book a time</h1>
      <p class="step-of">
        Step {number} of {steps.length}: <strong>{title}</strong>
      </p>
      {(yard || loadType || slot) && (
        <ul class="chosen" aria-label="Chosen so far">
          {yard && yards.length > 1 && <li>{yard.name}</li>}
          {loadType && <li>{loadType.name}</li>}
          {slot && yard && <li>{dayAndClock(slot.startAt, yard.timeZone)}</li>}
        </ul>
      )}
      {step === 'yard' && (
        <div class="choices">
          {yards.map((y) => (
            <button key={y.id} type="button" class="choice" onClick={() => setYard(y)}>
              {y.name}
            </button>
          ))}
        </div>
      )}
      {step === 'load' &&
        (types.length === 0 ? (
          <FormMessage kind="warn">This yard has no load type you can book. Call the yard.</FormMessage>
        ) : (
          <div class="choices">
            {types.map((t) => (
              <button key={t.id} type="button" class="choice" onClick={() => setLoadType(t)}>
                {t.name}
                <small>{t.durationMinutes} min at the door</small>
              </button>
            ))}
          </div>
        ))}
      {step === 'time' && yard && loadType && (
        <SlotPicker
          yardId={yard.id}
          loadTypeId={loadType.id}
          timeZone={yard.timeZone}
          label="Free times"
          onPick={setSlot}
        />
      )}
      {step === 'details' && yard && loadType && slot && (
        <Details yard={yard} loadType={loadType} slot={slot} onTaken={() => setSlot(null)} />
      )}
      {step !== steps[0] && (
        <button type="button" class="link back" onClick={back}>
          Back
        </button>
      )}
    </section>
  );
}

function Details(props: { yard: PortalYard; loadType: LoadType; slot: FreeSlot; onTaken: () => void }) {
  const [refs, setRefs] = useState('');
  const [trailer, setTrailer] = useState('');
  const [plate, setPlate] = useState('');
  const [driver, setDriver] = useState('');
  const [phone, setPhone] = useState('');
  // One key per booking form: a press repeated after a lost answer gets the same booking back.
  const [key] = useState(() => crypto.randomUUID());
  // The pass comes next: its code loads while the form is filled in.
  useEffect(() => {
    import('./pass').catch(() => undefined);
  }, []);
  const send = useSubmit(async () => {
    const made = await book(
      { yardId: props.yard.id, loadTypeId: props.loadType.id, startAt: props.slot.startAt },
      {
        refs: splitRefs(refs),
        trailerNumber: trailer.trim() || null,
        truckPlate: plate.trim() || null,
        driverName: driver.trim() || null,
        driverPhone: phone.trim() || null,
      },
      key,
    );
    justBooked.value = made;
    go(`${passHref(made.id)}?booked=1`);
  });
  const fields = send.problem?.fieldErrors() ?? {};
  const taken = send.problem?.code === 'slot-taken';
  const input = (
    id: string,
    name: string,
    value: string,
    set: (v: string) => void,
    extra = {},
    hint = false,
  ) => (
    <input
      {...describedBy(id, fields[name], hint)}
      name={name}
      value={value}
      onInput={(e) => set(e.currentTarget.value)}
      {...extra}
    />
  );
  return (
    <form
      class="details"
      onSubmit={(e) => {
        e.preventDefault();
        void send.run();
      }}
    >
      <p class="summary">
        <strong>{props.loadType.name}</strong> at {props.yard.name},{' '}
        <strong>{dayAndClock(props.slot.startAt, props.yard.timeZone)}</strong> (yard time)
      </p>
      <Field
        id="bk-refs"
        label="PO or BOL numbers"
        hint="Several? Separate them with commas."
        error={fields.refs}
      >
        {input('bk-refs', 'refs', refs, setRefs, {}, true)}
      </Field>
      <Field id="bk-trailer" label="Trailer number" error={fields.trailerNumber}>
        {input('bk-trailer', 'trailerNumber', trailer, setTrailer, { autoCapitalize: 'characters' })}
      </Field>
      <Field id="bk-plate" label="Truck plate" error={fields.truckPlate}>
        {input('bk-plate', 'truckPlate', plate, setPlate, { autoCapitalize: 'characters' })}
      </Field>
      <Field id="bk-driver" label="Driver's name" error={fields.driverName}>
        {input('bk-driver', 'driverName', driver, setDriver, { autoComplete: 'off' })}
      </Field>
      <Field id="bk-phone" label="Driver's phone" error={fields.driverPhone}>
        {input('bk-phone', 'driverPhone', phone, setPhone, { type: 'tel', autoComplete: 'off' })}
      </Field>
      {(send.problem || send.failed) && (
        <FormMessage kind="error">
          {send.failed
            ? 'The booking could not be sent. Check the connection and try again.'
            : send.problem?.message}
        </FormMessage>
      )}
      {taken ? (
        <button type="button" class="primary wide" onClick={props.onTaken}>
          Choose another time
        </button>
      ) : (
        <button type="submit" class="primary wide" disabled={send.busy}>
          {send.busy ? 'Booking…' : 'Book'}
        </button>
      )}
    </form>
  );
}
