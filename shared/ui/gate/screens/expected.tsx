import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { problemText } from '../../common/api/problem-text';
import { canWorkGate, session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { onLive } from '../../common/live';
import { lateGraceMinutes, loadDay, yardDay } from '../appointments/data';
import {
  type Appointment,
  applyChange,
  countByStatus,
  type ExpectedStatus,
  expectedStatus,
  matchesFilter,
  mayCheckIn,
  STATUS_LABEL,
} from '../appointments/expected-rows';
import { ExpectedTable } from '../appointments/expected-table';
import { ExpectedTools } from '../appointments/expected-tools';
import { timeZone, yard } from '../yard';
import '../appointments/expected.css';

/** The data of `appointment.changed`: the appointment as the API shows it. */
interface ChangedEvent {
  data?: Appointment;
}

/**
 * Expected arrivals: today's appointments of the desk's yard by time, with the status the clerk
 * reads (due, late, arrived, docked, no-show). Kept current by the live `appointment.changed`
 * events (another desk's check-in, the office's reschedule, the no-show sweep) and reloaded after
 * a reconnect or a sync from the cloud; never polled. A minute's tick turns "due" into "late"
 * without a request.
 */
export function Expected() {
  const yardId = yard.value!.id;
  const tz = timeZone.value;
  const { route } = useLocation();
  const [rows, setRows] = useState<Appointment[] | null>(null);
  const [grace, setGrace] = useState(15);
  const [problem, setProblem] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const [changed, setChanged] = useState<ReadonlySet<string>>(new Set());
  const [announce, setAnnounce] = useState('');
  // Completed ones are done with the gate: hidden unless asked for, so what is still to come shows.
  const [showDone, setShowDone] = useState(false);
  // Code, ref, carrier or trailer: the clerk finds the truck at the window among the day's list.
  const [filter, setFilter] = useState('');
  const day = useRef(yardDay(tz));

  const reload = useCallback(() => {
    day.current = yardDay(tz);
    const { from, to } = day.current;
    loadDay(yardId, from, to).then(
      (items) => {
        setRows(items);
        setNow(Date.now());
        setProblem(null);
      },
      (err) => setProblem(problemText(err)),
    );
  }, [yardId, tz]);

  useEffect(() => {
    reload();
    lateGraceMinutes(yardId).then(setGrace, () => undefined); // unknown: the default grace
    const offChanged = onLive(
      ['appointment.changed'],
      (e) => {
        const a = (e.data as ChangedEvent).data;
        if (!a) return;
        setRows((rs) => (rs ? applyChange(rs, a, { yardId, ...day.current }) : rs));
        setChanged((c) => new Set(c).add(a.id));
        setAnnounce(`Appointment ${a.code} of ${a.carrierName}: ${a.status.replace('_', '-')}.`);
      },
      reload,
    );
    // Bookings the cloud sent down arrive as a sync, not as an appointment event.
    const offSync = onLive(['sync.applied'], (e) => {
      const entities = (e.data as { data?: { entities?: Record<string, number> } }).data?.entities;
      if (entities?.appointment) reload();
    });
    const tick = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= day.current.to) reload(); // midnight: the new day's list
    }, 30_000);
    return () => {
      offChanged();
      offSync();
      clearInterval(tick);
    };
  }, [reload, yardId]);

  const counts = useMemo(() => countByStatus(rows ?? [], now, grace), [rows, now, grace]);
  const summary = (Object.keys(counts) as ExpectedStatus[])
    .filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${STATUS_LABEL[s]}`)
    .join(', ');

  const mayWork = canWorkGate(session.principal.value?.role);
  const checkIn = (a: Appointment) => route(`/gate/?code=${encodeURIComponent(a.code)}`);
  const open = (rows ?? []).filter((r) => showDone || r.status !== 'completed');
  const shown = filter.trim() ? open.filter((r) => matchesFilter(r, filter)) : open;
  return (
    <section class="expected-screen" aria-labelledby="expected-heading">
      <h1 id="expected-heading">
        Expected arrivals today{' '}
        {rows && (
          <span class="muted count">
            {rows.length} appointment{rows.length === 1 ? '' : 's'}
            {summary ? `: ${summary}` : ''}
          </span>
        )}
      </h1>
      {problem && (
        <FormMessage kind="error">
          Today's appointments could not be loaded: {problem} The list reloads by itself when the connection
          is back.
        </FormMessage>
      )}
      {!rows && !problem && <p class="muted">Loading today's appointments…</p>}
      {rows && rows.length === 0 && (
        <p>No appointment today. Bookings made for today appear here as they are made.</p>
      )}
      {rows && rows.length > 0 && (
        <ExpectedTools
          filter={filter}
          onFilter={setFilter}
          onEnter={() => {
            // One appointment left that may come in: Enter opens its check-in, as its button does.
            const only = shown.length === 1 ? shown[0] : undefined;
            if (!only || !mayWork || !mayCheckIn(expectedStatus(only, now, grace))) return false;
            checkIn(only);
            return true;
          }}
          completed={counts.completed}
          showDone={showDone}
          onShowDone={setShowDone}
        />
      )}
      {rows && rows.length > 0 && open.length === 0 && <p>Every appointment of today is completed.</p>}
      {open.length > 0 && shown.length === 0 && (
        <p role="status">No appointment of today matches {filter.trim()}.</p>
      )}
      {shown.length > 0 && (
        <ExpectedTable
          rows={shown}
          now={now}
          lateGraceMinutes={grace}
          timeZone={tz}
          mayWork={mayWork}
          changed={changed}
          onCheckIn={checkIn}
        />
      )}
      <p class="muted">Late after {grace} min past the start. The list follows every change as it happens.</p>
      <p class="visually-hidden" role="status">
        {announce}
      </p>
    </section>
  );
}
