import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { FormMessage } from '../../common/components/field';
import { yardTime, yardToday } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import { type Carrier, loadCarriers } from '../billing/data';
import { problemText } from '../records/http';
import { GateMovements } from './gate-movements';
import { PeriodFilter } from './period-filter';
import { type DetentionReport, downloadDetentionCsv, loadDetention } from './report-data';
import { minutesText, type Period, periodOf } from './report-values';

const ARRIVAL_WORDS: Record<string, string> = { early: 'early', on_time: 'on time', late: 'late' };
const BASE = '/dashboard/appointments/detention';

/**
 * The detention report (docs/domain.md "Wait and detention"): per appointment of the period its
 * times, wait, turn and detention, and the gate movements with their pictures, the evidence for a
 * carrier's claim; the same as CSV. Period and carrier are in the address (a link opens the same).
 */
export function DetentionPage(props: { yardId: string; timeZone: string }) {
  const { query, route } = useLocation();
  const period = periodOf(query, yardToday(props.timeZone));
  const carrierId = query.carrier ?? '';
  const [report, setReport] = useState<DetentionReport | null>(null);
  const [carriers, setCarriers] = useState<Carrier[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const q = {
    yardId: props.yardId,
    timeZone: props.timeZone,
    ...period,
    ...(carrierId ? { carrierId } : {}),
  };
  const csv = useSubmit(async () => setSaved(await downloadDetentionCsv(q)));

  useEffect(() => {
    loadCarriers().then(setCarriers, () => setCarriers([]));
  }, []);
  useEffect(() => {
    let live = true;
    setReport(null);
    setProblem(null);
    loadDetention(q).then(
      (r) => live && setReport(r),
      (err: unknown) => live && setProblem(problemText(err, 'report')),
    );
    return () => {
      live = false;
    };
  }, [props.yardId, props.timeZone, period.from, period.to, carrierId]);

  const choose = (p: Period, carrier: string) => {
    const params = new URLSearchParams({ from: p.from, to: p.to, ...(carrier ? { carrier } : {}) });
    setSaved(null);
    route(`${BASE}?${params}`);
  };
  const tz = props.timeZone;
  // A time on the booked day as its clock time, on another day with its date (yardTime's rule).
  const at = (iso: string | null | undefined, booked: string) =>
    iso ? yardTime(iso, tz, Date.parse(booked)) : '–';
  const day = (iso: string) => yardTime(iso, tz, 0);

  return (
    <section aria-labelledby="detention-heading">
      <div class="panel-head">
        <h2 id="detention-heading">Detention report</h2>
        <button type="button" onClick={() => csv.run()} disabled={csv.busy}>
          {csv.busy ? 'Preparing the CSV…' : 'Download CSV'}
        </button>
      </div>
      <p class="muted">
        Wait: from the booked start (or the arrival, when late) to docking. Turn: arrival to departure.
        Detention: the time past the free time from that same start to departure. Times in the yard’s zone (
        {tz}).
      </p>
      <PeriodFilter
        key={`${period.from}/${period.to}`}
        id="detention"
        period={period}
        carrierId={carrierId}
        carriers={carriers}
        onChoose={choose}
      />
      {(csv.problem || csv.failed) && (
        <FormMessage kind="error">
          The CSV could not be made: {problemText(csv.problem, 'report')}
        </FormMessage>
      )}
      {saved && <FormMessage kind="ok">Saved {saved}.</FormMessage>}
      {problem && <FormMessage kind="error">The report could not be read: {problem}</FormMessage>}
      {!problem && !report && <p class="muted">Loading the report…</p>}
      {report && report.items.length === 0 && <p>No appointments in this period.</p>}
      {report && report.items.length > 0 && (
        <table class="detention">
          <caption class="visually-hidden">
            Appointments from {period.from} to {period.to}
          </caption>
          <thead>
            <tr>
              <th scope="col">Appointment</th>
              <th scope="col">Booked</th>
              <th scope="col">Arrived</th>
              <th scope="col">Docked</th>
              <th scope="col">Departed</th>
              <th scope="col" class="num">
                Wait
              </th>
              <th scope="col" class="num">
                Turn
              </th>
              <th scope="col" class="num">
                Detention
              </th>
            </tr>
          </thead>
          {report.items.map((r) => (
            <tbody key={r.id} class="detention-row">
              <tr>
                <th scope="row">
                  {r.code} · {r.carrierName}
                  <small class="hint">
                    {r.loadTypeName}, {r.doorName}
                    {r.refs.length > 0 && ` · ${r.refs.join(', ')}`}
                  </small>
                </th>
                <td>{day(r.startAt)}</td>
                <td>
                  {r.arrivedAt ? at(r.arrivedAt, r.startAt) : r.status === 'no_show' ? 'No-show' : '–'}
                  {r.arrival && <small class={`hint arrival-${r.arrival}`}>{ARRIVAL_WORDS[r.arrival]}</small>}
                </td>
                <td>{at(r.dockedAt, r.startAt)}</td>
                <td>{at(r.departedAt, r.startAt)}</td>
                <td class="num">{minutesText(r.waitMinutes)}</td>
                <td class="num">{minutesText(r.turnMinutes)}</td>
                <td class={r.detentionMinutes ? 'num detained' : 'num'}>{minutesText(r.detentionMinutes)}</td>
              </tr>
              {r.movements.length > 0 && (
                <tr class="movements-row">
                  <td colSpan={8}>
                    <GateMovements code={r.code} movements={r.movements} timeZone={tz} />
                  </td>
                </tr>
              )}
            </tbody>
          ))}
        </table>
      )}
    </section>
  );
}
