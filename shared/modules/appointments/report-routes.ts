import type { RouteRegistrar } from '../../http/routes.js';
import { detentionCsv } from './detention-csv.js';
import { AppointmentSummaryOut, DetentionQuery, DetentionReport, SummaryQuery } from './report-schema.js';
import type { ReportService } from './report-service.js';

const TAG = 'Appointment Controller';
/** The office, billing and viewers read the record; the gate does not need it. */
const READERS = ['admin', 'dispatcher', 'billing', 'viewer'] as const;
const WINDOW_ERRORS =
  '`bad-range`: `from` is not before `to`; `range-too-long`: more than a year at once; `forbidden`: a yard outside your scope';

/** The detention report and the summary (docs/api.md "Appointments"; docs/domain.md "Wait and detention"). */
export function registerReportRoutes(r: RouteRegistrar, s: { appointmentReports: ReportService }): void {
  r.add({
    method: 'get',
    path: '/api/appointment/detention',
    tag: TAG,
    summary:
      'Wait, turn and detention per appointment, with the gate movements and their photos; CSV by Accept',
    description:
      'The appointments of your yards booked to start in [`from`, `to`) (default: the 30 days before now), by start time. ' +
      'Each has its times, the clock start (startAt when it arrived early or on time, arrivedAt when late), wait = ' +
      'max(0, docked - clock start), turn = departed - arrived and detention = max(0, departed - clock start - the ' +
      'yard’s free time), in minutes (null until it happened), and the gate movements of its arrival (check-in; the ' +
      'check-outs of its truck and trailer) with their photo attachment ids. Send `Accept: text/csv` for the same as a ' +
      'CSV file (one row per appointment, times on the yard’s wall clock with its offset).',
    access: READERS,
    query: DetentionQuery,
    response: {
      schema: DetentionReport,
      description:
        'JSON; with `Accept: text/csv`, UTF-8 CSV with a header row, downloaded as `detention-<from>-<to>.csv`',
      headers: {
        'Content-Disposition': 'with Accept: text/csv, attachment; filename="detention-<from>-<to>.csv"',
      },
    },
    errors: [403],
    errorText: { 400: WINDOW_ERRORS },
    handler: async ({ principal, query, req, res }) => {
      const report = await s.appointmentReports.detention(principal, query);
      res.vary('Accept');
      if (req.accepts(['application/json', 'text/csv']) !== 'text/csv') return report;
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      const name = `detention-${report.from.slice(0, 10)}-${report.to.slice(0, 10)}.csv`;
      res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
      res.setHeader('Cache-Control', 'no-store');
      res.send(detentionCsv(report.items));
      return undefined;
    },
  });

  r.add({
    method: 'get',
    path: '/api/appointment/summary',
    tag: TAG,
    summary: 'On-time %, early, late, no-shows, wait and turn p50/p90 per carrier and per door',
    description:
      'Over the appointments of your yards booked to start in [`from`, `to`) (default: the 30 days before now); ' +
      'appointments cancelled before their truck came are not counted. onTimePercent = onTime / (arrived + noShows); ' +
      'p50 / p90 are nearest-rank percentiles in minutes over the appointments that have the figure. Doors in natural ' +
      'order (Door 2 before Door 10), carriers by name.',
    access: READERS,
    query: SummaryQuery,
    response: { schema: AppointmentSummaryOut },
    errors: [403],
    errorText: { 400: WINDOW_ERRORS },
    handler: ({ principal, query }) => s.appointmentReports.summary(principal, query),
  });
}
