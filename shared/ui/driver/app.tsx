import { useEffect, useState } from 'preact/hooks';
import { session } from '../common/auth';
import { FormMessage } from '../common/components/field';
import { startLive, stopLive } from '../common/live';
import { logOut } from '../common/session-api';
import { UpdateReady } from './offline/update-ready';
import { disablePush } from './push/subscribe';
import { DriverLogin, DriverSessionExpired } from './screens/login';
import { ShiftScreen } from './screens/shift-screen';
import { availability, endShift, heartbeat, loadYards, shift, shiftYard } from './shift';
import { followTasks, forgetTasks, loadPlaces, loadTasks, restoreTasks, tasks } from './tasks';
import { flushPings, startTracking } from './tracking';

/**
 * The driver app: the login (driver code + PIN) until a driver is signed in, then the shift
 * screen: the current task card, the queue, pending and conflicting actions.
 */
export function DriverApp() {
  const principal = session.principal.value;
  if (!principal) {
    return (
      <main class="driver driver-login-page">
        <DriverLogin heading="Yard driver: log in" />
      </main>
    );
  }
  return <SignedIn name={principal.name} />;
}

const AVAILABILITY_TEXT = { 'on-shift': 'On shift', 'off-shift': 'Off shift', offline: 'Offline' } as const;

function SignedIn(props: { name: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  const token = session.token();
  const expired = session.expired.value;
  const onShift = Boolean(shift.value);
  const yardId = shiftYard.value?.id;

  // Who may work where, and whether a shift is already open (after a reload).
  useEffect(() => {
    if (!token || expired) return;
    loadYards().then(
      () => setProblem(null),
      (err: Error) => setProblem(`The yard list could not be loaded: ${err.message}`),
    );
    void heartbeat();
    // Opened without a network and nothing kept: ask again once the network is back.
    const retry = () => {
      if (shift.value === undefined) void heartbeat();
    };
    window.addEventListener('online', retry);
    return () => window.removeEventListener('online', retry);
  }, [token, expired]);

  // While on shift: the live stream, the task list, the location and battery pings.
  useEffect(() => {
    if (!token || expired || !onShift) return;
    startLive();
    const unfollow = followTasks();
    restoreTasks();
    void loadTasks();
    const stopTracking = startTracking();
    return () => {
      unfollow();
      stopLive();
      stopTracking();
      if (shift.value === null) forgetTasks();
    };
  }, [token, expired, onShift]);

  useEffect(() => {
    if (yardId && !expired) loadPlaces(yardId).catch(() => undefined);
  }, [yardId, expired]);

  const logout = async () => {
    // Logging out ends an open shift, so the office does not see a driver on shift who has gone.
    if (shift.value)
      await flushPings()
        .then(endShift)
        .catch(() => undefined);
    // The phone stops receiving this driver's task notices: its push service then answers the
    // server's next message with 410 and the server forgets the device. The next driver turns
    // notifications on again with one tap (no prompt: the permission stays).
    await disablePush();
    await logOut();
    shift.value = undefined;
    tasks.value = [];
    session.signOut();
  };
  const state = availability.value;
  return (
    <div class="driver">
      <header class="driver-top">
        <span class="who">{props.name}</span>
        <span class={`badge availability ${state}`} role="status">
          {AVAILABILITY_TEXT[state]}
        </span>
        <button type="button" class="link" onClick={logout}>
          Log out
        </button>
      </header>
      <UpdateReady />
      <main id="main">
        {problem && <FormMessage kind="error">{problem}</FormMessage>}
        <ShiftScreen />
      </main>
      <DriverSessionExpired />
    </div>
  );
}
