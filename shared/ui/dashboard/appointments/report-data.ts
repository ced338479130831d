import { api, call, type Schemas } from '../../common/api/client';
import { ProblemError, toProblem } from '../../common/api/problem';
import { saveBlob } from '../billing/download';
import { fileNameOf } from '../billing/download-name';
import { type Period, periodWindow } from './report-values';

// What the report screens read (detention per appointment, on-time figures per carrier and door):
// the components call these, never the API client (the data-layer rule in .dependency-cruiser.cjs).

export type DetentionReport = Schemas['DetentionReport'];
export type DetentionRow = DetentionReport['items'][number];
export type AppointmentSummary = Schemas['AppointmentSummary'];

export interface ReportQuery extends Period {
  yardId: string;
  /** The yard's zone: the period's dates are its days. */
  timeZone: string;
  carrierId?: string;
}

const query = (q: ReportQuery) => ({
  yardId: q.yardId,
  ...periodWindow(q, q.timeZone),
  ...(q.carrierId ? { carrierId: q.carrierId } : {}),
});

/** Wait, turn and detention per appointment of the period, with the gate movements and their pictures. */
export function loadDetention(q: ReportQuery): Promise<DetentionReport> {
  return call(api.GET('/api/appointment/detention', { params: { query: query(q) } }));
}

/** The same report as CSV (Accept: text/csv), saved under the server's file name; returns that name. */
export async function downloadDetentionCsv(q: ReportQuery): Promise<string> {
  const fallback = `detention-${q.from}-${q.to}.csv`;
  let result: { data?: Blob; error?: unknown; response: Response };
  try {
    result = (await api.GET('/api/appointment/detention', {
      params: { query: query(q) },
      headers: { Accept: 'text/csv' },
      parseAs: 'blob',
    })) as typeof result;
  } catch {
    throw new ProblemError(toProblem(0, undefined));
  }
  if (!result.response.ok || !result.data) {
    // A refusal is problem+json even when CSV was asked for: read it as such.
    let body: unknown;
    try {
      body = JSON.parse(await (result.error instanceof Blob ? result.error.text() : Promise.resolve('')));
    } catch {
      body = result.error;
    }
    throw new ProblemError(toProblem(result.response.status, body));
  }
  const name = fileNameOf(result.response.headers.get('content-disposition'), fallback);
  saveBlob(result.data, name);
  return name;
}

/** On-time, early, late, no-shows, wait and turn per carrier and per door for the period. */
export function loadSummary(q: ReportQuery): Promise<AppointmentSummary> {
  return call(api.GET('/api/appointment/summary', { params: { query: query(q) } }));
}
