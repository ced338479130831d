import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import '../common/base.css';
import { session } from '../common/auth';
import { LoginForm } from '../common/components/login';
import { appsFor, type ServerRole } from './apps';

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
  const apps = principal && server ? appsFor(principal.role, server) : [];
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
