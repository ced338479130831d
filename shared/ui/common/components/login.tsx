import { useEffect, useRef, useState } from 'preact/hooks';
import type { ProblemError } from '../api/problem';
import { session } from '../auth';
import { logIn } from '../session-api';
import { useSubmit } from '../use-submit';
import { Dialog } from './dialog';
import { describedBy, Field, FormMessage } from './field';

/**
 * Username and password login. Used as the page (nobody signed in) and as the dialog that opens
 * over a screen when the token expired: the screen stays mounted underneath, so a half-typed
 * check-in survives.
 */
export function LoginForm(props: { heading: string; note?: string; username?: string }) {
  const [username, setUsername] = useState(props.username ?? '');
  const [password, setPassword] = useState('');
  const passwordRef = useRef<HTMLInputElement>(null);
  const usernameRef = useRef<HTMLInputElement>(null);
  // The first empty field takes the focus, so a clerk can type at once.
  useEffect(() => (props.username ? passwordRef : usernameRef).current?.focus(), [props.username]);

  const send = useSubmit(async () => {
    try {
      await logIn(username, password);
    } catch (err) {
      setPassword('');
      passwordRef.current?.focus();
      throw err;
    }
  });
  const { busy, problem: error } = send;
  const submit = (e: Event) => {
    e.preventDefault();
    void send.run();
  };
  const fields = error?.fieldErrors() ?? {};
  return (
    <form class="login" onSubmit={submit} aria-labelledby="login-heading">
      <h1 id="login-heading">{props.heading}</h1>
      {props.note && <p>{props.note}</p>}
      {error && <FormMessage kind="error">{loginProblemText(error)}</FormMessage>}
      <Field id="login-username" label="Username" error={fields.username}>
        <input
          {...describedBy('login-username', fields.username)}
          name="username"
          autoComplete="username"
          value={username}
          onInput={(e) => setUsername(e.currentTarget.value)}
          required
          ref={usernameRef}
        />
      </Field>
      <Field id="login-password" label="Password" error={fields.password}>
        <input
          {...describedBy('login-password', fields.password)}
          ref={passwordRef}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          required
        />
      </Field>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Logging in…' : 'Log in'}
      </button>
    </form>
  );
}

function loginProblemText(error: ProblemError): string {
  if (error.code === 'unauthenticated') return 'Wrong username or password, or the account is disabled.';
  if (error.code === 'rate-limited') return 'Too many failed attempts. Wait a minute, then try again.';
  return error.message;
}

/** Over the screen when the server refused the token: log in again, the screen keeps its state. */
export function SessionExpiredDialog() {
  if (!session.expired.value) return null;
  // Esc does not close it: there is no going on without logging in (or out).
  return (
    <Dialog id="session-ended" labelledBy="login-heading" onClose={() => undefined}>
      <LoginForm
        heading="Your session has ended"
        note="Log in again to carry on. What you typed on the screen is kept."
        username={session.username()}
      />
      <button type="button" class="link" onClick={() => session.signOut()}>
        Log in as someone else
      </button>
    </Dialog>
  );
}
