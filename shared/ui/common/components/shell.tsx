import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { session } from '../auth';
import { liveState, startLive, stopLive } from '../live';
import { logOut } from '../session-api';
import { LinkBadge } from './link-badge';
import { LoginForm, SessionExpiredDialog } from './login';

export interface NavItem {
  href: string;
  label: string;
  /** The keyboard shortcut shown beside the label (Alt+key). */
  key?: string;
}

/**
 * The frame of every app: a login page until someone is signed in; then the header (app name,
 * navigation, the site link badge, live state, the user and Log out) around the screen, and the
 * login dialog over it when the session ends.
 */
export function Shell(props: {
  app: string;
  nav: NavItem[];
  current: string;
  timeZone: string;
  /** A search box in the header, on every screen (the dashboard's search everywhere). */
  search?: ComponentChildren;
  children: ComponentChildren;
}) {
  const principal = session.principal.value;
  const token = session.token();
  useEffect(() => {
    if (!token || session.expired.value) return;
    startLive();
    return () => stopLive();
  }, [token, session.expired.value]);
  if (!principal) {
    return (
      <main class="login-page">
        <LoginForm heading={`${props.app}: log in`} />
      </main>
    );
  }
  const logout = async () => {
    await logOut();
    session.signOut();
  };
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="/">
          {props.app}
        </a>
        <nav aria-label="Screens">
          {props.nav.map((n) => (
            <a
              key={n.href}
              href={n.href}
              aria-current={n.href === props.current ? 'page' : undefined}
              aria-keyshortcuts={n.key ? `Alt+${n.key}` : undefined}
            >
              {n.label}
              {n.key && <kbd>Alt+{n.key.toUpperCase()}</kbd>}
            </a>
          ))}
        </nav>
        {props.search}
        <div class="status">
          <LinkBadge timeZone={props.timeZone} />
          <span class={`badge live-${liveState.value}`} title="Live updates from the server">
            {liveState.value === 'open' ? 'Live' : liveState.value === 'ended' ? 'Not live' : 'Reconnecting…'}
          </span>
          <span class="who">
            {principal.name} <small>({principal.role})</small>
          </span>
          <button type="button" onClick={logout}>
            Log out
          </button>
        </div>
      </header>
      <main id="main">{props.children}</main>
      <SessionExpiredDialog />
    </div>
  );
}
