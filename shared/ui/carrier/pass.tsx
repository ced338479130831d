import { useEffect, useState } from 'preact/hooks';
import { problemText } from '../common/api/problem-text';
import { FormMessage } from '../common/components/field';
import { onLive } from '../common/live';
import { useSubmit } from '../common/use-submit';
import { type Appointment, appointment, download, fileUrl, justBooked, yardOf } from './data';
import { changeText, dayAndClock, STATUS_TONE, STATUS_WORDS } from './words';

/**
 * The gate pass on the phone: the QR code the gate's scanner reads (the server draws it; fetched
 * with the bearer into a blob: URL, as an <img> cannot send it), the code in large letters for a
 * clerk to type, the yard, door and time in the yard's zone, and the PDF and calendar files.
 * Loaded on first use (a lazy chunk). The status follows `appointment.changed`.
 */
export function Pass(props: { id: string }) {
  // Just booked: shown at once from the booking's answer (the events keep it current after).
  const [a, setA] = useState<Appointment | null>(() =>
    justBooked.value?.id === props.id ? justBooked.value : null,
  );
  const [qr, setQr] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const booked = new URLSearchParams(location.search).has('booked');
  useEffect(() => {
    let alive = true;
    let url: string | null = null;
    const load = () =>
      appointment(props.id).then(
        (x) => alive && setA(x),
        (err) => alive && setProblem(problemText(err)),
      );
    if (justBooked.value?.id === props.id) justBooked.value = null;
    else void load();
    fileUrl(`/api/appointment/${encodeURIComponent(props.id)}/pass.png`).then(
      (u) => {
        url = u;
        if (alive) setQr(u);
        else URL.revokeObjectURL(u);
      },
      () => undefined, // the code in letters still works at the gate
    );
    const off = onLive(
      ['appointment.changed'],
      (e) => {
        const x = (e.data as { data?: Appointment }).data;
        if (x?.id === props.id) setA(x);
      },
      load,
    );
    return () => {
      alive = false;
      off();
      if (url) URL.revokeObjectURL(url);
    };
  }, [props.id]);
  const files = useSubmit((kind: 'pdf' | 'ics') =>
    download(
      `/api/appointment/${encodeURIComponent(props.id)}/pass.${kind}`,
      `gate-pass-${a?.code ?? props.id}.${kind}`,
    ),
  );
  if (problem) return <FormMessage kind="error">The pass could not be loaded: {problem}</FormMessage>;
  if (!a) return <p class="muted">Loading the pass…</p>;
  const yard = yardOf(a.yardId);
  const until = changeText(a, yard.timeZone);
  return (
    <section class="pass" aria-labelledby="pass-heading">
      {booked && a.status === 'scheduled' && (
        <FormMessage kind="ok">Booked. Show this pass at the gate, or give the driver the code.</FormMessage>
      )}
      <h1 id="pass-heading">Gate pass</h1>
      <div class={`pass-card ${a.status === 'cancelled' ? 'cancelled' : ''}`}>
        <p class="pass-status">
          <span class={`badge status ${STATUS_TONE[a.status] ?? ''}`} role="status">
            {STATUS_WORDS[a.status]}
          </span>
        </p>
        {qr && a.status !== 'cancelled' && (
          <img
            class="qr"
            src={qr}
            alt={`QR code of the appointment code ${a.code}`}
            width={240}
            height={240}
          />
        )}
        <p class="pass-code">
          <span class="visually-hidden">Appointment code </span>
          <span class="code">{a.code}</span>
        </p>
        <dl>
          <dt>Yard</dt>
          <dd>{yard.name || a.yardId}</dd>
          {a.doorName && (
            <>
              <dt>Door</dt>
              <dd>{a.doorName}</dd>
            </>
          )}
          <dt>Time</dt>
          <dd>{dayAndClock(a.startAt, yard.timeZone)} (yard time)</dd>
          <dt>Load</dt>
          <dd>{a.loadTypeName}</dd>
          {a.trailerNumber && (
            <>
              <dt>Trailer</dt>
              <dd>{a.trailerNumber}</dd>
            </>
          )}
          {a.refs.length > 0 && (
            <>
              <dt>Refs</dt>
              <dd>{a.refs.join(', ')}</dd>
            </>
          )}
        </dl>
        {until && <p class="muted">{until}</p>}
      </div>
      {(files.problem || files.failed) && (
        <FormMessage kind="error">The file could not be downloaded. Try again.</FormMessage>
      )}
      <div class="actions">
        <button type="button" class="primary" disabled={files.busy} onClick={() => void files.run('pdf')}>
          Download PDF
        </button>
        <button type="button" disabled={files.busy} onClick={() => void files.run('ics')}>
          Add to calendar (.ics)
        </button>
        <a class="button" href="/carrier/bookings">
          My bookings
        </a>
      </div>
    </section>
  );
}
