import { computed, signal } from '@preact/signals';
import { api, call, type Schemas } from '../common/api/client';
import { ProblemError } from '../common/api/problem';
import { liveState } from '../common/live';
import { deviceId } from './device';
import { kept } from './kept';

export type Yard = Schemas['Yard'];
export type DriverSession = Schemas['DriverSession'];

/** The yards a driver may work in (GET /api/yard is open to drivers). */
export const yards = signal<Yard[]>([]);
/** The open shift (the server's driver session), null when off shift, undefined until known. */
export const shift = signal<DriverSession | null | undefined>(undefined);
const keptShift = kept<DriverSession>('shift');

function setShift(value: DriverSession | null): void {
  shift.value = value;
  keptShift.write(value);
}
/** Whether the phone has a network at all (the browser's view). */
/** Said on the start screen when the server ended the shift without this phone asking. */
export const endedElsewhere = signal(false);
export const online = signal(typeof navigator === 'undefined' ? true : navigator.onLine);

export const shiftYard = computed(() => {
  const id = shift.value?.yardId;
  return (
    yards.value.find((y) => y.id === id) ?? (yards.value.length === 1 ? yards.value[0] : undefined) ?? null
  );
});

/** Every time on the driver's screens is in the yard's zone. */
export const timeZone = computed(
  () => shiftYard.value?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
);

export type Availability = 'on-shift' | 'off-shift' | 'offline';

/**
 * What the office sees of the driver, as the driver should understand it: offline whenever the
 * phone has no link to the server (then nothing reaches the office), else on or off shift.
 */
export const availability = computed<Availability>(() => {
  if (!online.value || liveState.value === 'reconnecting') return 'offline';
  return shift.value ? 'on-shift' : 'off-shift';
});

const keptYards = kept<Yard[]>('yards');

export async function loadYards(): Promise<void> {
  try {
    const page = await call(api.GET('/api/yard', { params: { query: { limit: 200 } } }));
    yards.value = page.items;
    keptYards.write(page.items);
  } catch (err) {
    const copy = keptYards.read();
    if (!copy) throw err;
    yards.value = copy;
  }
}

/**
 * The heartbeat, also how the app learns after a reload whether a shift is open (there is no
 * "my session" read): 409 `no-active-session` means off shift. A failed link leaves what is known.
 */
export async function heartbeat(extra: { battery?: number; lat?: number; lon?: number } = {}): Promise<void> {
  try {
    const answer = await call(
      api.POST('/api/yard-task/driver/last-check', { body: { at: new Date().toISOString(), ...extra } }),
    );
    setShift(answer.session);
  } catch (err) {
    if (err instanceof ProblemError && err.code === 'no-active-session') {
      if (shift.value) endedElsewhere.value = true;
      setShift(null);
    } else if (shift.value === undefined) {
      // No answer (no link, or the server failed): the shift as the phone last knew it.
      shift.value = keptShift.read();
    }
  }
}

export async function startShift(yardId: string): Promise<void> {
  endedElsewhere.value = false;
  setShift(
    await call(api.POST('/api/yard-task/driver/session/start', { body: { yardId, deviceId: deviceId() } })),
  );
}

export async function endShift(): Promise<void> {
  try {
    await call(api.POST('/api/yard-task/driver/session/end', { body: { reason: 'end of shift' } }));
  } catch (err) {
    // Already ended (from another phone, or by the office): the shift is over all the same.
    if (!(err instanceof ProblemError && err.code === 'no-active-session')) throw err;
  }
  setShift(null);
}

if (typeof window !== 'undefined') {
  window.addEventListener('online', () => {
    online.value = true;
  });
  window.addEventListener('offline', () => {
    online.value = false;
  });
}
