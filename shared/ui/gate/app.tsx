import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso';
import { session } from '../common/auth';
import { FormMessage } from '../common/components/field';
import { type NavItem, Shell } from '../common/components/shell';
import { useShortcuts } from '../common/shortcuts';
import { CheckIn } from './screens/check-in';
import { chooseYard, loadYards, timeZone, yard, yards } from './yard';

// The check-in screen loads with the app (it is what the desk opens on); the others on first use.
const CheckOut = lazy(() => import('./screens/check-out').then((m) => m.CheckOut));
const Lanes = lazy(() => import('./screens/lanes').then((m) => m.Lanes));
const Inventory = lazy(() => import('./screens/inventory').then((m) => m.Inventory));
const Movements = lazy(() => import('./screens/movements').then((m) => m.Movements));
const Drivers = lazy(() => import('./screens/drivers').then((m) => m.Drivers));
const Expected = lazy(() => import('./screens/expected').then((m) => m.Expected));

/** The gate house's screens and their Alt+key shortcuts (shown in the navigation). */
export const NAV: NavItem[] = [
  { href: '/gate/', label: 'Check in', key: 'i' },
  { href: '/gate/expected', label: 'Expected', key: 'e' },
  { href: '/gate/check-out', label: 'Check out', key: 'o' },
  { href: '/gate/lanes', label: 'Lanes', key: 'l' },
  { href: '/gate/yard', label: 'Yard', key: 'y' },
  { href: '/gate/movements', label: 'Movements', key: 'm' },
  { href: '/gate/drivers', label: 'Drivers', key: 'd' },
];

export function GateApp() {
  return (
    <LocationProvider>
      <GateShell />
    </LocationProvider>
  );
}

function GateShell() {
  const { path, route } = useLocation();
  const principal = session.principal.value;
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!principal || session.expired.value) return;
    loadYards().then(
      () => setProblem(null),
      (err: Error) => setProblem(err.message),
    );
  }, [principal?.id, session.expired.value]);
  const shortcuts = useMemo(
    () => Object.fromEntries(NAV.filter((n) => n.key).map((n) => [`Alt+${n.key}`, () => route(n.href)])),
    [route],
  );
  useShortcuts(shortcuts);
  return (
    <Shell app="Gate house" nav={NAV} current={path} timeZone={timeZone.value}>
      {problem && <FormMessage kind="error">The yard list could not be loaded: {problem}</FormMessage>}
      {yards.value.length > 1 && (
        <label class="yard-pick">
          Yard{' '}
          <select value={yard.value?.id} onChange={(e) => chooseYard(e.currentTarget.value)}>
            {yards.value.map((y) => (
              <option key={y.id} value={y.id}>
                {y.name} ({y.code})
              </option>
            ))}
          </select>
        </label>
      )}
      {yard.value ? (
        <ErrorBoundary>
          <Router>
            <Route path="/gate/" component={CheckIn} />
            <Route path="/gate/expected" component={Expected} />
            <Route path="/gate/check-out" component={CheckOut} />
            <Route path="/gate/lanes" component={Lanes} />
            <Route path="/gate/yard" component={Inventory} />
            <Route path="/gate/movements" component={Movements} />
            <Route path="/gate/drivers" component={Drivers} />
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      ) : (
        !problem && <p class="muted">Loading the yard…</p>
      )}
    </Shell>
  );
}

function NotFound() {
  return (
    <p>
      There is no such screen. Go to <a href="/gate/">check-in</a>.
    </p>
  );
}
