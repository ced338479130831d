import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import '../common/base.css';
import { type Role, session } from '../common/auth';
import { LoginForm } from '../common/components/login';

/** The apps built so far, and who each is for (UI.md). The driver app and the dashboard join this list. */
export const APPS = [
  {
    href: '/gate/',
    name: 'Gate house',
    text: 'Check trucks and trailers in and out, open gates, yard inventory and move requests.',
    roles: ['admin', 'gate', 'dispatcher', 'viewer'] as Role[],
  },
];

/**
 * The role-aware home at `/`: log in once, then go to the app for your role (straight there when
 * there is one; a choice when there are several; a plain word when there is none yet).
 */
function Home() {
  const principal = session.principal.value;
  const apps = principal ? APPS.filter((a) => a.roles.includes(principal.role)) : [];
  useEffect(() => {
    if (principal && apps.length === 1 && apps[0]) location.replace(apps[0].href);
  }, [principal, apps.length]);
  if (!principal) {
    return (
      <main class="login-page">
        <LoginForm heading="Yard service: log in" />
      </main>
    );
  }
  return (
    <main id="main">
      <h1>Hello {principal.name}</h1>
      {apps.length === 0 ? (
        <p>
          There is no screen for the {principal.role} role here yet. The API documentation is at{' '}
          <a href="/docs">/docs</a>.
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
    </main>
  );
}

render(<Home />, document.getElementById('app')!);
