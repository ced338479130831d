import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '../../shared/db/migrate.js';
import { type InYard, writeGateHistory } from './dashboard-gate-history.js';
import type { Progress } from './dashboard-progress.js';
import type { DashboardScale } from './dashboard-scale.js';
import {
  CARRIER_WORDS,
  CLIENT_ERRORS,
  DAY_MS,
  FIRST_NAMES,
  HOUR_MS,
  hlcAt,
  idAt,
  LAST_NAMES,
  MINUTE_MS,
  nullableFloor,
  plate,
  REGIONS,
  scacOf,
  TASK_TYPES,
  vin,
} from './dashboard-seed-values.js';
import { prepareStatements, type Statements } from './dashboard-statements.js';

const TRUCKS_PER_CARRIER = 40;
const DRIVERS_PER_CARRIER = 10;
const CARRIERS_PER_SITE = 25;
const TRUCKS_IN_YARD = 40;
const YARD_DRIVERS = 6;
const HISTORY_ROWS = 500;

export interface SiteSeed {
  index: number;
  siteId: string;
  code: string;
  timeZone: string;
  anchor: number;
  scale: DashboardScale;
}

/** Organisation-wide master data (cloud-owned): carriers, their trucks and drivers. */
export interface Organisation {
  carriers: Array<{ id: string; scac: string; json: string }>;
  trucksByCarrier: string[][];
  driversByCarrier: string[][];
  trucks: Array<{ id: string; carrier: number }>;
}

/** A yard's locations by kind. */
export interface Places {
  spots: string[];
  doors: string[];
  zones: string[];
}

/**
 * Writes the rows of the organisation and of one site at a time (dashboard-seed.ts runs each in a
 * transaction). The rows are those the real code would have left: ids are UUIDv7 of the row's time,
 * HLCs carry the writing side's origin, visits pair each check-in with its check-out.
 */
/** What the site's parts written in other files (dashboard-gate-history.ts) share with the writer. */
export interface SeedContext {
  st: Statements;
  rng: () => number;
  progress: Progress;
  /** Trailer numbers run on across sites (each with its carrier's SCAC in front). */
  nextTrailerNumber: () => number;
}

export class SiteWriter {
  private readonly st: Statements;
  private trailerNumber = 100_000;
  private readonly context: SeedContext;

  constructor(
    db: Database.Database,
    private readonly rng: () => number,
    private readonly progress: Progress,
  ) {
    this.st = prepareStatements(db);
    this.context = { st: this.st, rng, progress, nextTrailerNumber: () => this.trailerNumber++ };
  }

  organisation(o: { anchor: number; carriers: number; sites: number }): Organisation {
    const { rng, st } = this;
    const since = o.anchor - 400 * DAY_MS;
    const carriers: Organisation['carriers'] = [];
    for (let c = 0; c < o.carriers; c++) {
      const at = since + c * MINUTE_MS;
      const row = {
        id: idAt(at),
        name: `${LAST_NAMES[c % LAST_NAMES.length]} ${CARRIER_WORDS[c % CARRIER_WORDS.length]} ${c + 1}`,
        scac: scacOf(c),
        usdot: String(1_000_000 + c * 37),
        status: c % 97 === 5 ? 'blocked' : 'active',
        blockedReason: c % 97 === 5 ? 'insurance expired' : null,
        contact: JSON.stringify({
          name: 'Dispatch',
          phone: `+1555${String(c).padStart(7, '0')}`,
          email: `dispatch${c}@carrier.example`,
        }),
        createdAt: at,
        updatedAt: at,
        hlc: hlcAt(at, c, 'cloud'),
        version: 1,
      };
      st.carrier.run(
        row.id,
        row.name,
        row.scac,
        row.usdot,
        row.status,
        row.blockedReason,
        row.contact,
        at,
        at,
        row.hlc,
      );
      carriers.push({ id: row.id, scac: row.scac, json: JSON.stringify(row) });
    }
    this.progress.add('carrier', o.carriers);
    const truckCount = Math.max(o.carriers * TRUCKS_PER_CARRIER, o.sites * TRUCKS_IN_YARD);
    const trucksByCarrier: string[][] = carriers.map(() => []);
    const trucks: Organisation['trucks'] = [];
    for (let t = 0; t < truckCount; t++) {
      const c = t % o.carriers;
      const at = since + rng() * 300 * DAY_MS;
      const id = idAt(at);
      st.truck.run(
        id,
        carriers[c]!.id,
        `U${t}`,
        plate(rng),
        REGIONS[t % REGIONS.length],
        vin(rng),
        at,
        at,
        hlcAt(at, t, 'cloud'),
      );
      trucksByCarrier[c]!.push(id);
      trucks.push({ id, carrier: c });
    }
    this.progress.add('truck', truckCount);
    const driversByCarrier: string[][] = carriers.map(() => []);
    for (let c = 0; c < o.carriers; c++) {
      for (let d = 0; d < DRIVERS_PER_CARRIER; d++) {
        const at = since + rng() * 300 * DAY_MS;
        const id = idAt(at);
        const n = c * DRIVERS_PER_CARRIER + d;
        st.driver.run(
          id,
          'carrier',
          carriers[c]!.id,
          FIRST_NAMES[n % FIRST_NAMES.length],
          LAST_NAMES[(n * 7) % LAST_NAMES.length],
          `+1555${String(n).padStart(7, '0')}`,
          `L${String(n * 13).padStart(8, '0')}`,
          REGIONS[n % REGIONS.length],
          '2028-06-30',
          null,
          at,
          at,
          hlcAt(at, n, 'cloud'),
        );
        driversByCarrier[c]!.push(id);
      }
    }
    this.progress.add('driver', o.carriers * DRIVERS_PER_CARRIER);
    return { carriers, trucksByCarrier, driversByCarrier, trucks };
  }

  /** One site: its yard and everything that happened there over the seeded days. */
  site(site: SiteSeed, org: Organisation): { yardId: string } {
    const { st } = this;
    const { anchor, scale, siteId } = site;
    const created = anchor - 180 * DAY_MS;
    const yardId = idAt(created);
    st.yard.run(
      yardId,
      site.code,
      `Yard ${site.code.slice(1)} (${site.timeZone.split('/').at(-1)!.replace('_', ' ')})`,
      site.timeZone,
      JSON.stringify({
        line1: `${site.index + 1} Freight Way`,
        city: site.timeZone.split('/').at(-1),
        country: 'US',
      }),
      Math.round(scale.trailersPerSite * 1.2),
      siteId,
      created,
      created,
      hlcAt(created, 0, siteId),
    );
    const gates = ['Inbound', 'Outbound'].map((name, i) => {
      const id = idAt(created + i);
      st.gate.run(id, yardId, name, i === 0 ? 'in' : 'out', created, created, hlcAt(created, i + 1, siteId));
      return id;
    }) as [string, string];
    this.progress.add('yard');
    this.progress.add('gate', 2);
    const places = this.locations(yardId, site, created);
    const carriers = this.siteCarriers(site.index, org.carriers.length);
    const yardDrivers = this.yardDrivers(site, yardId);
    this.inYard = writeGateHistory(this.context, site, yardId, gates, places, carriers, org);
    this.trucksInYard(site, yardId, gates[0], org);
    this.tasks(site, yardId, places, yardDrivers, org);
    this.syncState(site, org);
    this.errorFigures(site, yardId);
    this.billing(site, yardId, org, carriers);
    return { yardId };
  }

  private locations(yardId: string, site: SiteSeed, created: number): Places {
    const t = site.scale.trailersPerSite;
    const spots = Math.round(t * 0.8);
    const doors = Math.max(4, Math.round(t / 60));
    const zones = 8;
    const zoneCapacity = Math.ceil(Math.max(0, t - spots - doors) / zones) + 20;
    const places: Places = { spots: [], doors: [], zones: [] };
    const add = (list: string[], kind: string, name: string, capacity: number) => {
      const id = idAt(created + list.length);
      this.st.location.run(
        id,
        yardId,
        kind,
        name,
        capacity,
        created,
        created,
        hlcAt(created, list.length, site.siteId),
      );
      list.push(id);
    };
    for (let i = 0; i < spots; i++) add(places.spots, 'spot', `S-${String(i + 1).padStart(4, '0')}`, 1);
    for (let i = 0; i < doors; i++) add(places.doors, 'door', `D-${String(i + 1).padStart(3, '0')}`, 1);
    for (let i = 0; i < zones; i++)
      add(places.zones, 'zone', `Zone ${String.fromCharCode(65 + i)}`, zoneCapacity);
    this.progress.add('location', spots + doors + zones);
    return places;
  }

  /** The carriers calling at a site, the first ones far more often (weights 1/rank). */
  private siteCarriers(s: number, all: number): { pick: () => number; top: number[] } {
    const top = Array.from({ length: Math.min(CARRIERS_PER_SITE, all) }, (_, k) => (s * 37 + k * 11) % all);
    const cumulative: number[] = [];
    let sum = 0;
    for (let k = 0; k < top.length; k++) {
      sum += 1 / (k + 1);
      cumulative.push(sum);
    }
    const pick = () => {
      const x = this.rng() * sum;
      let k = 0;
      while (cumulative[k]! < x) k++;
      return top[k]!;
    };
    return { pick, top };
  }

  private yardDrivers(site: SiteSeed, yardId: string): string[] {
    const ids: string[] = [];
    for (let d = 0; d < YARD_DRIVERS; d++) {
      const at = site.anchor - 150 * DAY_MS + d * HOUR_MS;
      const id = idAt(at);
      const n = site.index * YARD_DRIVERS + d;
      this.st.driver.run(
        id,
        'yard',
        null,
        FIRST_NAMES[(n * 3) % FIRST_NAMES.length],
        LAST_NAMES[(n * 5) % LAST_NAMES.length],
        null,
        null,
        null,
        null,
        `7${String(site.index).padStart(4, '0')}${d}`,
        at,
        at,
        hlcAt(at, d, 'cloud'),
      );
      ids.push(id);
      // Four of them on shift: an open session, heard from seconds before the seed's "now".
      if (d < 4) {
        const started = site.anchor - 4 * HOUR_MS;
        this.st.session.run(
          idAt(started),
          id,
          yardId,
          `device-${n}`,
          started,
          site.anchor - 20_000,
          started,
          site.anchor - 20_000,
          hlcAt(started, d, site.siteId),
        );
        this.progress.add('driver_session');
      }
    }
    this.progress.add('driver', YARD_DRIVERS);
    return ids;
  }

  /** The site's trailers in the yard now (for the tasks that move them). */
  private inYard: InYard = { trailerIds: [], carrierIds: [] };

  /** A few tractors waiting in the yard: checked in alone (no trailer) in the last two days. */
  private trucksInYard(site: SiteSeed, yardId: string, gateIn: string, org: Organisation): void {
    for (let j = 0; j < TRUCKS_IN_YARD; j++) {
      const truck = org.trucks[(site.index * TRUCKS_IN_YARD + j) % org.trucks.length]!;
      const at = Math.floor(site.anchor - this.rng() * 2 * DAY_MS);
      const movementId = idAt(at);
      const drivers = org.driversByCarrier[truck.carrier]!;
      const carrierId = org.carriers[truck.carrier]!.id;
      this.st.movement.run(
        movementId,
        yardId,
        gateIn,
        'in',
        at,
        truck.id,
        null,
        drivers[j % drivers.length],
        carrierId,
        null,
        null,
        null,
        at + 40,
        hlcAt(at, j, site.siteId),
      );
      this.st.visit.run(idAt(at), yardId, 'truck', null, truck.id, carrierId, movementId, null, at, null);
      this.st.truckIn.run(yardId, at, hlcAt(at, j, site.siteId), truck.id);
    }
    this.progress.add('movement', TRUCKS_IN_YARD);
    this.progress.add('visit', TRUCKS_IN_YARD);
  }

  /**
   * Yard tasks: tasksPerDay a day over the period, nearly all completed by a yard driver (with
   * their transitions as task events), and a few open ones now: queued, assigned, in progress.
   */
  private tasks(site: SiteSeed, yardId: string, places: Places, drivers: string[], org: Organisation): void {
    const { rng, st } = this;
    const { anchor, scale, siteId } = site;
    const span = scale.days * DAY_MS;
    const done = scale.tasksPerDay * scale.days;
    const open = [...Array(6).fill('QUEUED'), ...Array(4).fill('ASSIGNED'), ...Array(2).fill('IN_PROGRESS')];
    const created = Array.from({ length: done }, () => anchor - span + rng() * (span - HOUR_MS)).sort(
      (a, b) => a - b,
    );
    const pickTrailer = () => Math.floor(rng() * this.inYard.trailerIds.length);
    let events = 0;
    let counter = 0;
    const event = (
      taskId: string,
      at: number,
      kind: string,
      from: string | null,
      to: string,
      driver: string | null,
      reason: string | null,
    ) => {
      st.taskEvent.run(
        idAt(at),
        taskId,
        yardId,
        Math.floor(at),
        kind === 'driver' ? driver : null,
        kind,
        from,
        to,
        driver,
        reason,
        Math.floor(at),
        hlcAt(at, counter++, siteId),
      );
      events++;
    };
    const write = (t: number, status: string, createdAt: number) => {
      const k = pickTrailer();
      const trailerId = this.inYard.trailerIds[k] ?? null;
      const driver = status === 'QUEUED' ? null : drivers[t % drivers.length]!;
      const assignedAt = driver ? createdAt + (1 + rng() * 9) * MINUTE_MS : null;
      const startedAt =
        status === 'IN_PROGRESS' || status === 'COMPLETED' ? assignedAt! + (1 + rng() * 4) * MINUTE_MS : null;
      const completedAt = status === 'COMPLETED' ? startedAt! + (5 + rng() * 20) * MINUTE_MS : null;
      const cancelledAt = status === 'CANCELLED' ? assignedAt! + 3 * MINUTE_MS : null;
      const last = completedAt ?? cancelledAt ?? startedAt ?? assignedAt ?? createdAt;
      const type = TASK_TYPES[Math.floor(rng() * TASK_TYPES.length)]!;
      const id = idAt(createdAt);
      st.task.run(
        id,
        yardId,
        type,
        trailerId,
        places.spots[Math.floor(rng() * places.spots.length)],
        places.doors[Math.floor(rng() * places.doors.length)],
        rng() < 0.1 ? 2 : 1,
        status,
        driver,
        Math.floor(createdAt),
        Math.floor(last),
        nullableFloor(assignedAt),
        nullableFloor(startedAt),
        nullableFloor(completedAt),
        nullableFloor(cancelledAt),
        status === 'CANCELLED' ? 'no longer needed' : null,
        status === 'COMPLETED' && trailerId ? org.carriers[this.inYard.carrierIds[k]!]!.id : null,
        hlcAt(last, counter++, siteId),
        1 + (assignedAt ? 1 : 0) + (startedAt ? 1 : 0) + (completedAt || cancelledAt ? 1 : 0),
      );
      event(id, createdAt, 'user', null, 'QUEUED', null, null);
      if (assignedAt) event(id, assignedAt, 'system', 'QUEUED', 'ASSIGNED', driver, null);
      if (startedAt) event(id, startedAt, 'driver', 'ASSIGNED', 'IN_PROGRESS', driver, null);
      if (completedAt) event(id, completedAt, 'driver', 'IN_PROGRESS', 'COMPLETED', driver, null);
      if (cancelledAt) event(id, cancelledAt, 'user', 'ASSIGNED', 'CANCELLED', null, 'no longer needed');
    };
    for (const [t, at] of created.entries()) write(t, rng() < 0.03 ? 'CANCELLED' : 'COMPLETED', at);
    for (const [t, status] of open.entries()) write(t, status, anchor - rng() * HOUR_MS);
    this.progress.add('yard_task', done + open.length);
    this.progress.add('task_event', events);
  }

  /**
   * The cloud's sync state for the site: carrier changes logged for it (acknowledged history, and
   * for every fifth site a backlog of 2,000-30,000 rows while it has been offline for a day or
   * more), its cursor, its link as last reported, and a few dead letters at some sites.
   */
  private syncState(site: SiteSeed, org: Organisation): void {
    const { rng, st } = this;
    const { anchor, siteId } = site;
    const offline = site.index % 5 === 0;
    const backlog = offline ? 2_000 + Math.floor(rng() * 28_000) : Math.floor(rng() * 30);
    const offlineSince = anchor - (1 + rng() * 2) * DAY_MS;
    let lastSeq = 0;
    const log = (i: number, at: number) => {
      const carrier = org.carriers[i % org.carriers.length]!;
      lastSeq = Number(
        st.changeLog.run(siteId, carrier.id, hlcAt(at, i, 'cloud'), SCHEMA_VERSION, carrier.json)
          .lastInsertRowid,
      );
    };
    for (let i = 0; i < HISTORY_ROWS; i++) log(i, anchor - 20 * DAY_MS + i * MINUTE_MS);
    const acked = lastSeq;
    const from = offline ? offlineSince : anchor - HOUR_MS;
    for (let i = 0; i < backlog; i++)
      log(HISTORY_ROWS + i, from + (i * (anchor - from)) / Math.max(1, backlog));
    this.progress.add('change_log', HISTORY_ROWS + backlog);
    const heard = offline ? offlineSince : anchor - rng() * 30_000;
    st.cursor.run(
      siteId,
      acked,
      50_000 + site.index,
      randomBytes(16).toString('hex'),
      Math.floor(heard),
      Math.floor(heard),
    );
    st.siteLink.run(
      offline ? 'offline' : 'online',
      Math.floor(offline ? offlineSince : anchor - rng() * 7 * DAY_MS),
      Math.floor(heard),
      offline ? Math.floor(rng() * 400) : Math.floor(rng() * 20),
      SCHEMA_VERSION,
      '0.1.0',
      Math.round((rng() - 0.5) * 200),
      siteId,
    );
    if (site.index % 10 === 3) {
      for (let i = 0; i < 2; i++) {
        st.deadLetter.run(
          siteId,
          1000 + i,
          'movement',
          idAt(anchor - DAY_MS),
          'FOREIGN KEY constraint failed',
          '{}',
          anchor - DAY_MS + i,
        );
      }
      this.progress.add('dead_letter', 2);
    }
  }

  /** 4xx/5xx responses per minute: a few error minutes in most hours, a 5xx now and then. */
  private errorFigures(site: SiteSeed, yardId: string): void {
    const { rng, st } = this;
    const hours = site.scale.days * 24;
    const first = Math.floor((site.anchor - hours * HOUR_MS) / HOUR_MS) * HOUR_MS;
    let rows = 0;
    for (let h = 0; h < hours; h++) {
      const hour = first + h * HOUR_MS;
      const n = rng() < 0.7 ? 1 + Math.floor(rng() * 3) : 0;
      for (let i = 0; i < n; i++) {
        const status = CLIENT_ERRORS[Math.floor(rng() * CLIENT_ERRORS.length)]!;
        st.errorStat.run(
          yardId,
          hour + Math.floor(rng() * 60) * MINUTE_MS,
          status,
          1 + Math.floor(rng() * 5),
        );
        rows++;
      }
      if (rng() < 0.15) {
        st.errorStat.run(yardId, hour + Math.floor(rng() * 60) * MINUTE_MS, rng() < 0.7 ? 500 : 503, 1);
        rows++;
      }
    }
    this.progress.add('http_error_stat', rows);
  }

  /**
   * Billing: the yard's config, configs of its five main carriers and issued invoices of the two
   * previous months for its eight main carriers. Invoice content holds only the totals: the list
   * of summaries the benchmark reads does not open it (PDF and overage do).
   */
  private billing(site: SiteSeed, yardId: string, org: Organisation, carriers: { top: number[] }): void {
    const { rng, st } = this;
    const at = site.anchor - 100 * DAY_MS;
    st.billingYard.run(yardId, at, at);
    for (const c of carriers.top.slice(0, 5))
      st.billingCarrier.run(idAt(at), yardId, org.carriers[c]!.id, at, at);
    const month = new Date(site.anchor);
    let n = 0;
    for (let back = 1; back <= 2; back++) {
      const d = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() - back, 1));
      const period = `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
      const issued = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 3);
      for (const c of carriers.top.slice(0, 8)) {
        const subtotal = 50_000 + Math.floor(rng() * 400_000);
        const tax = Math.round(subtotal * 0.08);
        st.invoice.run(
          idAt(issued),
          `${site.code}-${period}-${org.carriers[c]!.scac}`,
          yardId,
          org.carriers[c]!.id,
          period,
          'issued',
          'USD',
          subtotal,
          tax,
          subtotal + tax,
          JSON.stringify({ totals: { subtotal, tax, total: subtotal + tax } }),
          issued,
          issued,
          issued,
          issued,
        );
        n++;
      }
    }
    this.progress.add('invoice', n);
  }
}
