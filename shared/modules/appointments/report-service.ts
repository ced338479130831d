import { type Principal, yardFilter } from '../../auth/principal.js';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { BadRequestError } from '../../http/errors.js';
import { asMinutes, detentionFigures } from './detention.js';
import { DEFAULT_FREE_TIME_MINUTES, type GateMovement, ReportRepo, type ReportRow } from './report-repo.js';
import type {
  AppointmentSummaryOutT,
  DetentionItemT,
  DetentionQueryT,
  DetentionReportT,
  SummaryQueryT,
} from './report-schema.js';
import { summarize } from './summary.js';

export type ReportDeps = Pick<CoreParts, 'kysely' | 'clock'>;

const DAY = 86_400_000;
/** Without `from`: the 30 days before `to`. */
const DEFAULT_DAYS = 30;
/** The longest window one request reads (a year and a day: a leap year's report). */
const MAX_DAYS = 367;

/**
 * The detention report and the on-time / wait / turn summary (docs/domain.md "Wait and
 * detention"), over the appointments booked to start in a window, of the caller's yards. Served
 * wherever the appointments are (the cloud, and an edge for its own yard's).
 */
export class ReportService {
  private readonly repo: ReportRepo;

  constructor(private readonly deps: ReportDeps) {
    this.repo = new ReportRepo(deps.kysely);
  }

  async detention(principal: Principal, query: DetentionQueryT): Promise<DetentionReportT> {
    const window = this.window(query);
    const rows = await this.repo.appointments({
      yardIds: yardFilter(principal, query.yardId),
      carrierId: query.carrierId,
      ...window,
    });
    const movements = groupBy(await this.repo.gateMovements(rows), (m) => m.appointmentId);
    return {
      from: toIso(window.from),
      to: toIso(window.to),
      items: rows.map((r) => detentionItem(r, movements.get(r.id) ?? [])),
    };
  }

  async summary(principal: Principal, query: SummaryQueryT): Promise<AppointmentSummaryOutT> {
    const window = this.window(query);
    const rows = await this.repo.appointments({ yardIds: yardFilter(principal, query.yardId), ...window });
    return { from: toIso(window.from), to: toIso(window.to), ...summarize(rows) };
  }

  /** [from, to) in epoch ms; 400 when inverted or longer than a year. */
  private window(query: { from?: string | undefined; to?: string | undefined }): {
    from: number;
    to: number;
  } {
    const to = query.to === undefined ? this.deps.clock.now() : Date.parse(query.to);
    const from = query.from === undefined ? to - DEFAULT_DAYS * DAY : Date.parse(query.from);
    if (from >= to) {
      throw new BadRequestError('bad-range', 'The start of the period must be before its end.');
    }
    if (to - from > MAX_DAYS * DAY) {
      throw new BadRequestError('range-too-long', `Choose a period of at most ${MAX_DAYS - 1} days.`);
    }
    return { from, to };
  }
}

export function detentionItem(r: ReportRow, movements: readonly GateMovement[]): DetentionItemT {
  const freeTimeMinutes = r.freeTimeMinutes ?? DEFAULT_FREE_TIME_MINUTES;
  const f = detentionFigures(r, freeTimeMinutes);
  return {
    id: r.id,
    code: r.code,
    yardId: r.yardId,
    yardCode: r.yardCode,
    timeZone: r.timeZone,
    doorId: r.doorId,
    doorName: r.doorName,
    loadTypeName: r.loadTypeName,
    carrierId: r.carrierId,
    carrierName: r.carrierName,
    refs: parseRefs(r.refs),
    trailerNumber: r.trailerNumber,
    truckPlate: r.truckPlate,
    status: r.status,
    arrival: r.arrival,
    startAt: toIso(r.startAt),
    endAt: toIso(r.endAt),
    arrivedAt: toIsoOrNull(r.arrivedAt),
    dockedAt: toIsoOrNull(r.dockedAt),
    completedAt: toIsoOrNull(r.completedAt),
    departedAt: toIsoOrNull(r.departedAt),
    noShowAt: toIsoOrNull(r.noShowAt),
    cancelledAt: toIsoOrNull(r.cancelledAt),
    clockStartAt: toIsoOrNull(f.clockStart),
    freeTimeMinutes,
    waitMinutes: asMinutes(f.wait),
    turnMinutes: asMinutes(f.turn),
    detentionMinutes: asMinutes(f.detention),
    movements: movements.map((m) => ({
      id: m.id,
      direction: m.direction,
      at: toIso(m.at),
      gateName: m.gateName,
      trailerNumber: m.trailerNumber,
      truckPlate: m.truckPlate,
      attachmentIds: m.attachmentIds,
    })),
  };
}

function parseRefs(json: string): string[] {
  try {
    const refs = JSON.parse(json) as unknown;
    return Array.isArray(refs) ? refs.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
