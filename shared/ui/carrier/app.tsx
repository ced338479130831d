import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { problemText } from '../common/api/problem-text';
import { session } from '../common/auth';
import { FormMessage } from '../common/components/field';
import { LoginForm, SessionExpiredDialog } from '../common/components/login';
import { liveState, startLive, stopLive } from '../common/live';
import { logOut } from '../common/session-api';
import { Book } from './book';
import { Bookings } from './bookings';
import { context, loadStart, loadTypes } from './data';
import { screen } from './route';

const NAV = [
  { href: '/carrier/', label: 'Book', screen: 'book' },
  { href: '/carrier/bookings', label: 'My bookings', screen: 'bookings' },
  { href: '/carrier/invoices', label: 'Invoices', screen: 'invoices' },
] as const;

/**
 * The carrier portal (UI.md "Carrier portal"): a phone-first app for a carrier's dispatchers at
 * the cloud. The login until a carrier user is signed in; then the header (company, screens, live
 * state, Log out), the screen, and the login dialog over it when the session ends.
 */
export function CarrierApp() {
  const principal = session.principal.value;
  if (!principal) {
    return (
      <main class="login-page">
        <LoginForm heading="Carrier portal: log in" />
      </main>
    );
  }
  if (principal.role !== 'carrier') {
    return (
      <main class="login-page">
        <section class="panel home">
          <h1>Carrier portal</h1>
          <p>
            This portal is for carriers’ users. Your login is a yard staff login:{' '}
            <a href="/">open the yard service</a> for your apps.
          </p>
          <button type="button" onClick={() => session.signOut()}>
            Log out
          </button>
        </section>
      </main>
    );
  }
  return <SignedIn name={principal.name} />;
}

function SignedIn(props: { name: string }) {
  const token = session.token();
  const expired = session.expired.value;
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!token || expired) return;
    loadStart().then(
      () => setProblem(null),
      (err) => setProblem(problemText(err)),
    );
    startLive();
    return () => stopLive();
  }, [token, expired]);
  const logout = async () => {
    await logOut();
    context.value = null;
    loadTypes.value = null;
    session.signOut();
  };
  const current = screen.value;
  const c = context.value;
  return (
    <div class="carrier">
      <header class="top carrier-top">
        <div class="bar">
          <span class="brand">{c?.carrier.name ?? 'Carrier portal'}</span>
          <span class={`badge live-${liveState.value}`} title="Live updates from the yard">
            {liveState.value === 'open' ? 'Live' : liveState.value === 'ended' ? 'Not live' : 'Reconnecting…'}
          </span>
          <span class="who">{props.name}</span>
          <button type="button" class="logout" onClick={logout}>
            Log out
          </button>
        </div>
        <nav aria-label="Screens">
          {NAV.map((n) => (
            <a key={n.href} href={n.href} aria-current={n.screen === current.name ? 'page' : undefined}>
              {n.label}
            </a>
          ))}
        </nav>
      </header>
      <main id="main">
        {problem && (
          <FormMessage kind="error">Your company’s data could not be loaded: {problem}</FormMessage>
        )}
        {c && loadTypes.value ? <Screen /> : !problem && <p class="muted">Loading…</p>}
      </main>
      <SessionExpiredDialog />
    </div>
  );
}

function Screen() {
  const s = screen.value;
  if (s.name === 'book') return <Book />;
  if (s.name === 'bookings') return <Bookings />;
  if (s.name === 'pass')
    return <Lazy key="pass" load={() => import('./pass').then((m) => m.Pass)} props={{ id: s.id }} />;
  if (s.name === 'invoices')
    return <Lazy key="invoices" load={() => import('./invoices').then((m) => m.Invoices)} props={{}} />;
  return (
    <p>
      There is no such screen. <a href="/carrier/">Book a time</a> or see{' '}
      <a href="/carrier/bookings">your bookings</a>.
    </p>
  );
}

/** A screen loaded on first use (the pass and the invoices are not part of the first load). */
function Lazy<P extends object>(props: { load: () => Promise<ComponentType<P>>; props: P }) {
  const [C, setC] = useState<{ c: ComponentType<P> } | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    props.load().then(
      (c) => setC({ c }),
      () => setFailed(true),
    );
  }, []);
  if (failed)
    return (
      <FormMessage kind="error">
        This screen could not be loaded. Check the connection and reload.
      </FormMessage>
    );
  return C ? <C.c {...props.props} /> : <p class="muted">Loading…</p>;
}
