import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { SCHEMA_VERSION } from '../../shared/db/migrate.js';
import { format as formatHlc } from '../../shared/sync/hlc.js';
import type { Progress } from './dashboard-progress.js';
import type { DashboardScale } from './dashboard-scale.js';
import { prepareStatements, type Statements } from './dashboard-statements.js';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
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
interface Places {
  spots: string[];
  doors: string[];
  zones: string[];
}

/**
 * Writes the rows of the organisation and of one site at a time (dashboard-seed.ts runs each in a
 * transaction). The rows are those the real code would have left: ids are UUIDv7 of the row's time,
 * HLCs carry the writing side's origin, visits pair each check-in with its check-out.
 */
export class SiteWriter {
  private readonly st: Statements;
  private trailerNumber = 100_000;

  constructor(
    db: Database.Database,
    private readonly rng: () => number,
    private readonly progress: Progress,
  ) {
    this.st = prepareStatements(db);
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
    this.gateHistory(site, yardId, gates, places, carriers, org);
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

  /**
   * The yard's trailers and 90 days of its gate: trailersPerSite trailers are in the yard now (open
   * visits, checked in over the whole period); the rest of the movements are visits that ended,
   * made by a pool of trailers that come and go (never two stays of one trailer at once).
   */
  private gateHistory(
    site: SiteSeed,
    yardId: string,
    gates: [string, string],
    places: Places,
    carriers: { pick: () => number },
    org: Organisation,
  ): void {
    const { rng, st } = this;
    const { anchor, scale, siteId } = site;
    const span = scale.days * DAY_MS;
    const start = anchor - span;
    const open = scale.trailersPerSite;
    const closed = Math.max(0, Math.floor((scale.days * scale.movesPerDay - open) / 2));
    const visits = open + closed;
    const inAt = new Float64Array(visits);
    const outAt = new Float64Array(visits).fill(Number.NaN);
    const unit = new Int32Array(visits);
    for (let v = 0; v < visits; v++) {
      inAt[v] = start + rng() * (span - 30 * MINUTE_MS);
      if (v < open) {
        unit[v] = v;
        continue;
      }
      let out = inAt[v]! + 15 * MINUTE_MS - Math.log(1 - rng()) * 36 * HOUR_MS;
      if (out > anchor - MINUTE_MS) out = inAt[v]! + rng() * (anchor - MINUTE_MS - inAt[v]!);
      outAt[v] = out;
    }
    // Ended stays go to pool trailers: one free again (after a day or two away) or a new one.
    const order = Array.from({ length: closed }, (_, i) => open + i).sort((a, b) => inAt[a]! - inAt[b]!);
    const free = new MinHeap();
    let trailers = open;
    for (const v of order) {
      const k = free.size > 0 && free.peekKey() <= inAt[v]! ? free.pop() : trailers++;
      unit[v] = k;
      free.push(outAt[v]! + (6 + rng() * 66) * HOUR_MS, k);
    }

    // The trailers: carrier, load, where they stand, their last change.
    const carrierOf = new Int32Array(trailers);
    const loaded = new Uint8Array(trailers);
    const lastAt = new Float64Array(trailers);
    const moves = new Int32Array(trailers);
    for (let k = 0; k < trailers; k++) {
      carrierOf[k] = carriers.pick();
      loaded[k] = rng() < 0.55 ? 1 : rng() < 0.9 ? 0 : 2;
    }
    for (let v = 0; v < visits; v++) {
      const k = unit[v]!;
      const last = Number.isNaN(outAt[v]!) ? inAt[v]! : outAt[v]!;
      if (last > lastAt[k]!) lastAt[k] = last;
      moves[k] = moves[k]! + (v < open ? 1 : 2);
    }
    const spotsAndDoors = places.spots.length + places.doors.length;
    const locationOf = (k: number) =>
      k < places.spots.length
        ? places.spots[k]!
        : k < spotsAndDoors
          ? places.doors[k - places.spots.length]!
          : places.zones[k % places.zones.length]!;
    const trailerIds: string[] = new Array(trailers);
    for (let k = 0; k < trailers; k++) {
      const made = start - rng() * 365 * DAY_MS;
      const id = idAt(made);
      trailerIds[k] = id;
      const inYard = k < open;
      const load = LOADS[loaded[k]!]!;
      st.trailer.run(
        id,
        org.carriers[carrierOf[k]!]!.id,
        `${org.carriers[carrierOf[k]!]!.scac}${this.trailerNumber++}`,
        plate(rng),
        REGIONS[k % REGIONS.length],
        trailerType(rng()),
        53,
        load,
        inYard && load === 'loaded' ? seal(rng) : null,
        inYard ? yardId : null,
        inYard ? locationOf(k) : null,
        inYard ? Math.floor(inAt[k]!) : null,
        Math.floor(made),
        Math.floor(lastAt[k]!),
        hlcAt(lastAt[k]!, k, siteId),
        moves[k]! + 1,
      );
    }
    this.progress.add('trailer', trailers);

    // Movements in time order (the gate's log), then the visits they made.
    const events = visits + closed;
    const eventAt = new Float64Array(events);
    const eventCode = new Int32Array(events);
    let e = 0;
    for (let v = 0; v < visits; v++) {
      eventAt[e] = inAt[v]!;
      eventCode[e++] = v * 2;
      if (v >= open) {
        eventAt[e] = outAt[v]!;
        eventCode[e++] = v * 2 + 1;
      }
    }
    const byTime = Uint32Array.from({ length: events }, (_, i) => i).sort(
      (a, b) => eventAt[a]! - eventAt[b]!,
    );
    const inMovement: string[] = new Array(visits);
    const outMovement: Array<string | null> = new Array(visits).fill(null);
    const truckOf: string[] = new Array(visits);
    let counter = 0;
    for (const i of byTime) {
      const at = Math.floor(eventAt[i]!);
      const v = eventCode[i]! >> 1;
      const out = (eventCode[i]! & 1) === 1;
      const k = unit[v]!;
      const c = carrierOf[k]!;
      const trucks = org.trucksByCarrier[c]!;
      const drivers = org.driversByCarrier[c]!;
      const truck = trucks[Math.floor(rng() * trucks.length)]!;
      const load = out
        ? LOADS[rng() < 0.5 ? 0 : 1]!
        : v < open
          ? LOADS[loaded[k]!]!
          : LOADS[rng() < 0.6 ? 1 : 0]!;
      const id = idAt(at);
      if (out) outMovement[v] = id;
      else {
        inMovement[v] = id;
        truckOf[v] = truck;
      }
      st.movement.run(
        id,
        yardId,
        gates[out ? 1 : 0],
        out ? 'out' : 'in',
        at,
        truck,
        trailerIds[k],
        drivers[Math.floor(rng() * drivers.length)],
        org.carriers[c]!.id,
        out ? null : v < open ? locationOf(k) : places.spots[Math.floor(rng() * places.spots.length)],
        load,
        load === 'loaded' ? seal(rng) : null,
        at + 40,
        hlcAt(at, counter++, siteId),
      );
    }
    this.progress.add('movement', events);
    const visitOrder = Uint32Array.from({ length: visits }, (_, i) => i).sort((a, b) => inAt[a]! - inAt[b]!);
    for (const v of visitOrder) {
      const k = unit[v]!;
      st.visit.run(
        idAt(inAt[v]!),
        yardId,
        'trailer',
        trailerIds[k],
        truckOf[v],
        org.carriers[carrierOf[k]!]!.id,
        inMovement[v],
        outMovement[v],
        Math.floor(inAt[v]!),
        Number.isNaN(outAt[v]!) ? null : Math.floor(outAt[v]!),
      );
    }
    this.progress.add('visit', visits);
    this.inYard = { trailerIds: trailerIds.slice(0, open), carrierIds: [...carrierOf.slice(0, open)] };
  }

  /** The site's trailers in the yard now (for the tasks that move them). */
  private inYard: { trailerIds: string[]; carrierIds: number[] } = { trailerIds: [], carrierIds: [] };

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

/** An HLC as the side that wrote the row would have given it (its origin: the site, or 'cloud'). */
export function hlcAt(ms: number, counter: number, origin: string): string {
  return formatHlc(Math.floor(ms), counter & 0xffff, origin);
}

/** A UUIDv7 of the given time, as the row would have been given when it was made. */
export function idAt(ms: number): string {
  return uuidv7({ msecs: Math.floor(ms) });
}

/** A small deterministic PRNG: the same scale seeds the same shape of data. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Min-heap of (key, value) pairs: the pool trailer free again soonest. */
class MinHeap {
  private readonly keys: number[] = [];
  private readonly values: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  peekKey(): number {
    return this.keys[0]!;
  }
  push(key: number, value: number): void {
    let i = this.keys.length;
    this.keys.push(key);
    this.values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent]! <= key) break;
      this.keys[i] = this.keys[parent]!;
      this.values[i] = this.values[parent]!;
      i = parent;
    }
    this.keys[i] = key;
    this.values[i] = value;
  }
  pop(): number {
    const top = this.values[0]!;
    const key = this.keys.pop()!;
    const value = this.values.pop()!;
    const n = this.keys.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const child = l + 1 < n && this.keys[l + 1]! < this.keys[l]! ? l + 1 : l;
      if (this.keys[child]! >= key) break;
      this.keys[i] = this.keys[child]!;
      this.values[i] = this.values[child]!;
      i = child;
    }
    this.keys[i] = key;
    this.values[i] = value;
    return top;
  }
}

function nullableFloor(ms: number | null): number | null {
  return ms === null ? null : Math.floor(ms);
}

function scacOf(c: number): string {
  let s = '';
  let n = c;
  for (let i = 0; i < 4; i++) {
    s = String.fromCharCode(65 + (n % 26)) + s;
    n = Math.floor(n / 26);
  }
  return s;
}

function plate(rng: () => number): string {
  const letter = () => String.fromCharCode(65 + Math.floor(rng() * 26));
  return `${letter()}${letter()}${letter()}${Math.floor(1000 + rng() * 9000)}`;
}

function vin(rng: () => number): string {
  return Array.from({ length: 17 }, () => 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'[Math.floor(rng() * 33)]).join(
    '',
  );
}

function seal(rng: () => number): string {
  return `SL${Math.floor(1_000_000 + rng() * 9_000_000)}`;
}

function trailerType(x: number): string {
  return x < 0.7 ? 'dry_van' : x < 0.85 ? 'reefer' : x < 0.9 ? 'flatbed' : x < 0.97 ? 'container' : 'tanker';
}

const LOADS = ['empty', 'loaded', 'unknown'] as const;
const TASK_TYPES = ['move', 'move', 'pull_to_door', 'pull_to_door', 'return_to_spot', 'shunt'];
const CLIENT_ERRORS = [400, 401, 403, 404, 404, 409, 422, 429];
const REGIONS = ['IL', 'TX', 'CA', 'OH', 'GA', 'PA', 'NJ', 'ON', 'BC', 'NL'];
const FIRST_NAMES = [
  'Ana',
  'Ben',
  'Chen',
  'Dana',
  'Eli',
  'Fatima',
  'Gus',
  'Hana',
  'Ivan',
  'Jo',
  'Kofi',
  'Lena',
  'Maya',
  'Nils',
];
const LAST_NAMES = [
  'Novak',
  'Okafor',
  'Patel',
  'Quinn',
  'Rossi',
  'Silva',
  'Tanaka',
  'Ueda',
  'Varga',
  'Weber',
  'Xu',
  'Young',
  'Zhou',
];
const CARRIER_WORDS = ['Freight', 'Logistics', 'Transport', 'Haulage', 'Express', 'Lines', 'Carriers'];
