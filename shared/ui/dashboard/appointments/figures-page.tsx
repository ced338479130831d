import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { FormMessage } from '../../common/components/field';
import { yardToday } from '../../common/time';
import { problemText } from '../records/http';
import { PeriodFilter } from './period-filter';
import { type AppointmentSummary, loadSummary } from './report-data';
import { minutesText, type Period, percentText, periodOf } from './report-values';

const BASE = '/dashboard/appointments/figures';
const count = new Intl.NumberFormat();

type Figures = AppointmentSummary['all'];
/** One row of figures: a carrier or a door, by name. */
type Group = Figures & { key: string; name: string };

/** One table of figures: a row per carrier or per door. */
function FiguresTable(props: { caption: string; first: string; rows: Group[]; total?: Figures }) {
  if (props.rows.length === 0) return null;
  return (
    <table class="figures">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">{props.first}</th>
          <th scope="col" class="num">
            Appointments
          </th>
          <th scope="col" class="num">
            On time
          </th>
          <th scope="col" class="num">
            Early
          </th>
          <th scope="col" class="num">
            Late
          </th>
          <th scope="col" class="num">
            No-shows
          </th>
          <th scope="col" class="num">
            Wait p50 / p90
          </th>
          <th scope="col" class="num">
            Turn p50 / p90
          </th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <FiguresRow key={r.key} name={r.name} figures={r} />
        ))}
      </tbody>
      {props.total && (
        <tfoot>
          <FiguresRow name="All" figures={props.total} />
        </tfoot>
      )}
    </table>
  );
}

function FiguresRow(props: { name: string; figures: Figures }) {
  const r = props.figures;
  return (
    <tr>
      <th scope="row">{props.name}</th>
      <td class="num">{count.format(r.appointments)}</td>
      <td class="num">
        {percentText(r.onTimePercent)} <small class="muted">({count.format(r.onTime)})</small>
      </td>
      <td class="num">{count.format(r.early)}</td>
      <td class="num">{count.format(r.late)}</td>
      <td class="num">{count.format(r.noShows)}</td>
      <td class="num">
        {minutesText(r.waitP50Minutes)} / {minutesText(r.waitP90Minutes)}
      </td>
      <td class="num">
        {minutesText(r.turnP50Minutes)} / {minutesText(r.turnP90Minutes)}
      </td>
    </tr>
  );
}

/**
 * On-time figures of the period (docs/domain.md "Wait and detention"): per carrier and per door the
 * share arrived on time, early and late arrivals, no-shows, and the wait and turn medians and 90th
 * percentiles. The period is in the address.
 */
export function FiguresPage(props: { yardId: string; timeZone: string }) {
  const { query, route } = useLocation();
  const period = periodOf(query, yardToday(props.timeZone));
  const [summary, setSummary] = useState<AppointmentSummary | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    setSummary(null);
    setProblem(null);
    loadSummary({ yardId: props.yardId, timeZone: props.timeZone, ...period }).then(
      (s) => live && setSummary(s),
      (err: unknown) => live && setProblem(problemText(err, 'figures')),
    );
    return () => {
      live = false;
    };
  }, [props.yardId, props.timeZone, period.from, period.to]);

  const choose = (p: Period) => route(`${BASE}?${new URLSearchParams({ from: p.from, to: p.to })}`);
  return (
    <section aria-labelledby="figures-heading">
      <h2 id="figures-heading">On-time figures</h2>
      <p class="muted">
        On time: arrived within the late time around the booked start. Wait and turn as in the detention
        report; p50 is the median, p90 what nine in ten stay under.
      </p>
      <PeriodFilter
        key={`${period.from}/${period.to}`}
        id="figures"
        period={period}
        carrierId=""
        onChoose={choose}
      />
      {problem && <FormMessage kind="error">The figures could not be read: {problem}</FormMessage>}
      {!problem && !summary && <p class="muted">Loading the figures…</p>}
      {summary && summary.byCarrier.length === 0 && <p>No appointments in this period.</p>}
      {summary && (
        <>
          <FiguresTable
            caption="Per carrier"
            first="Carrier"
            rows={summary.byCarrier.map((c) => ({ ...c, key: c.carrierId, name: c.carrierName }))}
            total={summary.all}
          />
          <FiguresTable
            caption="Per door"
            first="Door"
            rows={summary.byDoor.map((d) => ({ ...d, key: d.doorId, name: d.doorName }))}
          />
        </>
      )}
    </section>
  );
}
