import {
  DAY_MS,
  HOUR_MS,
  hlcAt,
  idAt,
  LOADS,
  MINUTE_MS,
  MinHeap,
  plate,
  REGIONS,
  seal,
  trailerType,
} from './dashboard-seed-values.js';
import type { Organisation, Places, SeedContext, SiteSeed } from './dashboard-site-writer.js';

/** The site's trailers in the yard now (for the tasks that move them). */
export interface InYard {
  trailerIds: string[];
  carrierIds: number[];
}

/**
 * The yard's trailers and 90 days of its gate: trailersPerSite trailers are in the yard now (open
 * visits, checked in over the whole period); the rest of the movements are visits that ended,
 * made by a pool of trailers that come and go (never two stays of one trailer at once).
 */
export function writeGateHistory(
  w: SeedContext,
  site: SiteSeed,
  yardId: string,
  gates: [string, string],
  places: Places,
  carriers: { pick: () => number },
  org: Organisation,
): InYard {
  const { rng, st } = w;
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
      `${org.carriers[carrierOf[k]!]!.scac}${w.nextTrailerNumber()}`,
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
  w.progress.add('trailer', trailers);

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
  const byTime = Uint32Array.from({ length: events }, (_, i) => i).sort((a, b) => eventAt[a]! - eventAt[b]!);
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
  w.progress.add('movement', events);
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
  w.progress.add('visit', visits);
  return { trailerIds: trailerIds.slice(0, open), carrierIds: [...carrierOf.slice(0, open)] };
}
