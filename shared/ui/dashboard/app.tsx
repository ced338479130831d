import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso';
import { session } from '../common/auth';
import { FormMessage } from '../common/components/field';
import { type NavItem, Shell } from '../common/components/shell';
import { useShortcuts } from '../common/shortcuts';
import { type Area, DASHBOARD_ROLES, mayUse } from './access';
import { chooseYard, loadScope, timeZone, yard, yards } from './scope';
import { Sites } from './screens/sites';
import { SearchBox } from './search/search-box';

// The sites page loads with the app (it is what the office opens on); the others on first use.
const YardFigures = lazy(() => import('./screens/yard').then((m) => m.YardFigures));
const YardMap = lazy(() => import('./screens/map').then((m) => m.YardMap));
const Gates = lazy(() => import('./screens/gates').then((m) => m.Gates));
const Appointments = lazy(() => import('./screens/appointments').then((m) => m.Appointments));
const Tasks = lazy(() => import('./screens/tasks').then((m) => m.Tasks));
const MasterData = lazy(() => import('./screens/master').then((m) => m.MasterData));
const Admin = lazy(() => import('./screens/admin').then((m) => m.Admin));
const Billing = lazy(() => import('./screens/billing').then((m) => m.Billing));

interface Screen extends NavItem {
  area: Area;
  /** Route pattern (preact-iso): screens with sub-pages take the rest of the path. */
  path: string;
  component: preact.ComponentType;
}

/** The dashboard's screens, who may open each (access.ts) and their Alt+key shortcuts. */
const SCREENS: Screen[] = [
  { href: '/dashboard/', path: '/dashboard/', label: 'Sites', key: 's', area: 'sites', component: Sites },
  {
    href: '/dashboard/yard',
    path: '/dashboard/yard',
    label: 'Yard',
    key: 'y',
    area: 'yard',
    component: YardFigures,
  },
  { href: '/dashboard/map', path: '/dashboard/map', label: 'Map', key: 'm', area: 'map', component: YardMap },
  {
    href: '/dashboard/gates',
    path: '/dashboard/gates',
    label: 'Gates',
    key: 'g',
    area: 'gates',
    component: Gates,
  },
  {
    href: '/dashboard/tasks',
    // ':rest*' matches /dashboard/tasks itself too; preact-iso's '/*' needs a segment after it.
    path: '/dashboard/tasks/:rest*',
    label: 'Tasks',
    key: 't',
    area: 'tasks',
    component: Tasks,
  },
  {
    href: '/dashboard/appointments',
    path: '/dashboard/appointments/:rest*',
    label: 'Appointments',
    key: 'p',
    area: 'appointments',
    component: Appointments,
  },
  {
    href: '/dashboard/master',
    path: '/dashboard/master/:rest*',
    label: 'Master data',
    key: 'd',
    area: 'master',
    component: MasterData,
  },
  {
    href: '/dashboard/admin',
    path: '/dashboard/admin/:rest*',
    label: 'Admin',
    key: 'a',
    area: 'admin',
    component: Admin,
  },
  {
    href: '/dashboard/billing',
    // `:rest*` matches the bare /dashboard/billing too (a plain `*` needs at least one more segment).
    path: '/dashboard/billing/:rest*',
    label: 'Billing',
    key: 'b',
    area: 'billing',
    component: Billing,
  },
];

export function DashboardApp() {
  return (
    <LocationProvider>
      <DashboardShell />
    </LocationProvider>
  );
}

function DashboardShell() {
  const { path, route } = useLocation();
  const principal = session.principal.value;
  const [problem, setProblem] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    if (!principal || session.expired.value) return;
    loadScope().then(
      () => {
        setProblem(null);
        setLoaded(true);
      },
      (err: Error) => setProblem(err.message),
    );
  }, [principal?.id, session.expired.value]);
  const role = principal?.role;
  const screens = SCREENS.filter((s) => mayUse(s.area, role));
  // Alt+key opens a screen, as the navigation shows beside each name.
  const shortcuts = useMemo(
    () => Object.fromEntries(screens.filter((s) => s.key).map((s) => [`Alt+${s.key}`, () => route(s.href)])),
    [route, role],
  );
  useShortcuts(shortcuts);
  // The screen whose address the path is or is under (the sites page only for itself).
  const trimmed = path.replace(/\/+$/, '');
  const current =
    trimmed === '/dashboard'
      ? '/dashboard/'
      : (screens.find((s) => s.href !== '/dashboard/' && trimmed.startsWith(s.href))?.href ?? path);
  return (
    <Shell
      app="Yard dashboard"
      nav={screens}
      current={current}
      timeZone={timeZone.value}
      search={principal && DASHBOARD_ROLES.includes(principal.role) ? <SearchBox /> : undefined}
    >
      {principal && !DASHBOARD_ROLES.includes(principal.role) ? (
        <p>
          The dashboard is for office staff. <a href="/">Go to the apps for your role</a>.
        </p>
      ) : (
        <>
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
          {loaded ? (
            <ErrorBoundary>
              <Router>
                {screens.map((s) => (
                  <Route key={s.path} path={s.path} component={s.component} />
                ))}
                <Route default component={NotHere} />
              </Router>
            </ErrorBoundary>
          ) : (
            !problem && <p class="muted">Loading…</p>
          )}
        </>
      )}
    </Shell>
  );
}

/** An unknown address, or a screen this role may not open. */
function NotHere() {
  return (
    <section>
      <h1>Not available</h1>
      <p>
        This screen does not exist or is not open to your role. Go to the{' '}
        <a href="/dashboard/">sites overview</a>.
      </p>
    </section>
  );
}
