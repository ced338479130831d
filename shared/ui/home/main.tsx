import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import '../common/base.css';
import { type Role, session } from '../common/auth';
import { LoginForm } from '../common/components/login';

/** The web apps and who each is for (UI.md). */
export const APPS = [
  {
    href: '/gate/',
    name: 'Gate house',
    text: 'Check trucks and trailers in and out, open gates, yard inventory and move requests.',
    roles: ['admin', 'gate', 'dispatcher', 'viewer'] as Role[],
    // Gates, movements and their pictures live at the site: the gate house runs at the edge.
    servers: ['edge'],
  },
  {
    href: '/driver/',
    name: 'Driver',
    text: 'Your yard tasks on the phone: the current move, the queue, start and complete.',
    roles: ['driver'] as Role[],
    // Drivers work over the yard Wi-Fi against their site's edge.
    servers: ['edge'],
  },
  {
    href: '/dashboard/',
    name: 'Dashboard',
    text: 'Every site at a glance, yard figures and map, remote gates, tasks, master data and billing.',
    roles: ['admin', 'dispatcher', 'billing', 'viewer'] as Role[],
    // The office works at the cloud; a standalone site shows its own dashboard.
    servers: ['cloud', 'edge'],
  },
];

type ServerRole = 'edge' | 'cloud';

/** Which role this server plays (public readiness answer), so the home offers the apps it serves. */
function useServerRole(): ServerRole | null {
  const [role, setRole] = useState<ServerRole | null>(null);
  useEffect(() => {
    fetch('/readyz')
      .then((r) => r.json() as Promise<{ role?: ServerRole }>)
      .then((r) => setRole(r.role ?? 'edge'))
      .catch(() => setRole('edge'));
  }, []);
  return role;
}

/**
 * The role-aware home at `/`: log in once, then go to the app for your role (straight there when
 * there is one; a choice when there are several; a plain word when there is none yet).
 */
function Home() {
  const principal = session.principal.value;
  const server = useServerRole();
  const apps =
    principal && server
      ? APPS.filter((a) => a.roles.includes(principal.role) && a.servers.includes(server))
      : [];
  useEffect(() => {
    if (principal && apps.length === 1 && apps[0]) location.replace(apps[0].href);
  }, [principal, apps.length]);
  if (!principal) {
    return (
      <main class="login-page">
        <LoginForm heading="Yard service: log in" />
        {/* Drivers sign in with a driver code and PIN, not a username: send them to their app. */}
        <p class="driver-hint">
          Yard driver? <a href="/driver/">Open the driver app</a> and log in with your driver code and PIN.
        </p>
      </main>
    );
  }
  if (!server) return <p class="muted">Loading…</p>;
  return (
    <main class="login-page">
      <section class="panel home">
        <h1>Hello {principal.name}</h1>
        {apps.length === 0 ? (
          <p>
            {server === 'cloud'
              ? 'The gate house runs at each site (its edge).'
              : `There is no screen for the ${principal.role} role here yet.`}{' '}
            The API and its documentation are at <a href="/docs">/docs</a>.
          </p>
        ) : (
          <ul>
            {apps.map((a) => (
              <li key={a.href}>
                <a href={a.href}>{a.name}</a>: {a.text}
              </li>
            ))}
          </ul>
        )}
        <button type="button" onClick={() => session.signOut()}>
          Log out
        </button>
      </section>
    </main>
  );
}

render(<Home />, document.getElementById('app')!);
