import type { YardApp } from '../shared/app.js';
import type { TaskType } from '../shared/enums.js';
import { RELOCATING_TASK_TYPES } from '../shared/enums.js';
import { newId } from '../shared/ids.js';

/** The demo's API client and records, as far as billing needs them (demo-data.ts calls this file). */
type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;
interface DemoRecords {
  yard: { id: string };
  carriers: Array<{ id: string; scac?: string | null }>;
}

/**
 * The demo yard's billing configs (DOMAIN.md "Billing"), made where billing lives: at a standalone
 * edge, or at the cloud when the edge is linked. Dallas: US dollars, Texas sales tax 8.25 %, 30 grace
 * minutes, list prices in cents (with a fee per late arrival and per no-show of a dock appointment);
 * each demo carrier has an agreement that overrides some of them.
 */
export async function seedBillingConfigs(
  api: Call,
  master: DemoRecords,
  progress: (step: string) => void,
): Promise<void> {
  const { yard, carriers } = master;
  await api('POST', '/api/billing/config', {
    yardId: yard.id,
    currency: 'USD',
    taxRateBp: 825,
    graceMinutes: 30,
    spaceMonthlyRate: 15_000,
    overageDailyRate: 2_500,
    moveFee: 1_500,
    gateFee: 500,
    // Appointment fees (LATE, NO_SHOW lines): the demo's appointments of last month have both.
    lateFee: 5_000,
    noShowFee: 10_000,
    issuerName: 'Dallas Cross-Dock LLC',
    issuerAddress: '1200 Freight Way, Dallas, TX 75212',
    issuerTaxId: '75-1234567',
    paymentTermsDays: 30,
  });
  const [loneStar, prairie, gulfCoast] = carriers;
  if (!loneStar || !prairie || !gulfCoast) throw new Error('the demo has three carriers');
  const agreements = [
    // Six reserved spaces at a negotiated space rate, and a monthly minimum.
    {
      carrier: loneStar,
      bookedSpaces: 6,
      spaceMonthlyRate: 14_000,
      minimumMonthly: 75_000,
      billToName: 'Lone Star Logistics – Accounts Payable',
      billToEmail: 'ap@lonestar-logistics.example',
    },
    // Two spaces at list price, a cheaper move fee and a softer no-show fee.
    {
      carrier: prairie,
      bookedSpaces: 2,
      moveFee: 1_200,
      noShowFee: 7_500,
      billToEmail: 'billing@prairiehaulers.example',
    },
    // Pay as you go: no reserved spaces, every rate the yard's.
    { carrier: gulfCoast, billToEmail: 'payables@gulfcoastcarriers.example' },
  ];
  for (const { carrier, ...rates } of agreements) {
    await api('POST', `/api/billing/config/${yard.id}/carrier`, { carrierId: carrier.id, ...rates });
  }
  progress('billing configs (USD, 8.25 % tax, late and no-show fees, a rate agreement per carrier)');
}

/** A finished yard move of the history: which trailer, what kind, when it was done, billed to whom. */
export interface PastMove {
  trailerId: string;
  carrierId: string;
  /** One of the relocating (billed) task types. */
  type: TaskType;
  completedAt: number;
}

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
/** Trailers of each demo carrier that come and go through the history (more than their booked spaces). */
const HISTORY_FLEET = [9, 4, 3];

/**
 * A month of history for billing (DOMAIN.md "Billing"): from a few days before the previous month
 * until yesterday, trailers of each carrier come and go (a stay of 1 to 4 days, 0.5 to 3 days away),
 * each visit with a completed yard move. Lone Star runs 9 trailers on 6 booked spaces and Prairie 4 on
 * 2, so busy days have overage; Gulf Coast pays as it goes. A generated invoice for last month then
 * has real lines. Check-ins and check-outs go through POST /api/movement with a past `at` (a clerk's
 * back-office entry, allowed up to now); the moves cannot be completed in the past over HTTP (a
 * driver completes a task now), so `recordMoves` writes them at the site (see completedMovesWriter).
 * Seeded random numbers: every demo has the same history relative to its start.
 */
export async function seedBillingHistory(
  api: Call,
  master: DemoRecords,
  progress: (step: string) => void,
  options: { now: number; recordMoves: (moves: PastMove[]) => Promise<void> },
): Promise<{ movements: number; moves: number }> {
  let seed = 20260101;
  const random = () => {
    // mulberry32: small and seeded.
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const between = (a: number, b: number) => a + Math.floor(random() * (b - a));
  const { yard, carriers } = master;
  const end = options.now - 2 * HOUR;
  const start = startOfPreviousMonth(options.now) - 4 * DAY;
  // Each trailer's visits in time order; the trailers in parallel (the API serialises the writes).
  const plans = carriers.flatMap((carrier, c) =>
    Array.from({ length: HISTORY_FLEET[c] ?? 0 }, (_, i) => {
      const visits: Array<{ inAt: number; outAt: number; moveAt: number }> = [];
      let t = start + between(0, 3 * DAY);
      while (true) {
        const outAt = t + between(DAY, 4 * DAY);
        if (outAt > end) break;
        visits.push({ inAt: t, outAt, moveAt: t + between(HOUR, 6 * HOUR) });
        t = outAt + between(DAY / 2, 3 * DAY);
      }
      return { carrier, number: `${carrier.scac ?? 'TRL'}${4100 + c * 20 + i}`, visits };
    }),
  );
  const moves: PastMove[] = [];
  let movements = 0;
  await Promise.all(
    plans.map(async (plan) => {
      let trailerId: string | undefined;
      for (const v of plan.visits) {
        const checkIn = (await api('POST', '/api/movement', {
          yardId: yard.id,
          direction: 'in',
          at: new Date(v.inAt).toISOString(),
          carrierId: plan.carrier.id,
          trailer: trailerId ? { id: trailerId } : { number: plan.number, carrierId: plan.carrier.id },
        })) as { trailerId: string };
        trailerId = checkIn.trailerId;
        await api('POST', '/api/movement', {
          yardId: yard.id,
          direction: 'out',
          at: new Date(v.outAt).toISOString(),
          trailer: { id: trailerId },
        });
        movements += 2;
        moves.push({
          trailerId,
          carrierId: plan.carrier.id,
          type: RELOCATING_TASK_TYPES[moves.length % RELOCATING_TASK_TYPES.length]!,
          completedAt: v.moveAt,
        });
      }
    }),
  );
  await options.recordMoves(moves);
  progress(
    `a month of billing history (${movements} check-ins and check-outs, ${moves.length} completed moves)`,
  );
  return { movements, moves: moves.length };
}

/** The first instant of the month before `now`'s (UTC; the history starts days earlier anyway). */
function startOfPreviousMonth(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
}

/**
 * Writes the history's completed moves at the site that holds the yard (a standalone edge, or the
 * linked edge, whose tasks reach the cloud by sync like any other), through the same change capture
 * the task service writes with: the rows are the ones a driver's completion leaves (COMPLETED, started
 * a quarter of an hour before, billed to the trailer's carrier), at their past times. The demo's one
 * back door, for lack of a back-dated completion in the API.
 */
export function completedMovesWriter(site: YardApp, yardId: string): (moves: PastMove[]) => Promise<void> {
  const { kysely, changes } = site.core;
  return (moves) =>
    kysely.transaction().execute(async (trx) => {
      for (const m of moves) {
        const startedAt = m.completedAt - 15 * 60 * 1000;
        await changes.insert(trx, 'yardTask', {
          id: newId(),
          yardId,
          type: m.type,
          trailerId: m.trailerId,
          fromLocationId: null,
          toLocationId: null,
          priority: 1,
          status: 'COMPLETED',
          driverId: null,
          notes: 'demo history',
          dueAt: null,
          createdBy: null,
          createdAt: startedAt - 30 * 60 * 1000,
          updatedAt: m.completedAt,
          assignedAt: startedAt - 5 * 60 * 1000,
          startedAt,
          completedAt: m.completedAt,
          cancelledAt: null,
          cancelReason: null,
          billedCarrierId: m.carrierId,
        });
      }
    });
}
