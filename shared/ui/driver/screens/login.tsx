import { useEffect, useRef, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { session } from '../../common/auth';
import { Dialog } from '../../common/components/dialog';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { driverLogIn } from '../auth';

/**
 * Driver code and PIN, big enough for gloves; the PIN brings up the phone's number pad. Used as
 * the page and, when the token ran out mid-shift, as a dialog over the shift (nothing is lost).
 */
export function DriverLogin(props: { heading: string; note?: string; code?: string | undefined }) {
  const [code, setCode] = useState(props.code ?? '');
  const [pin, setPin] = useState('');
  const codeRef = useRef<HTMLInputElement>(null);
  const pinRef = useRef<HTMLInputElement>(null);
  useEffect(() => (props.code ? pinRef : codeRef).current?.focus(), [props.code]);

  const logIn = useSubmit(async () => {
    try {
      await driverLogIn(code, pin);
    } catch (err) {
      setPin('');
      pinRef.current?.focus();
      throw err;
    }
  });
  const busy = logIn.busy;
  const error = logIn.problem || logIn.failed ? loginErrorText(logIn.problem) : null;
  const submit = (e: Event) => {
    e.preventDefault();
    void logIn.run();
  };
  return (
    <form class="driver-login" onSubmit={submit} aria-labelledby="driver-login-heading">
      <h1 id="driver-login-heading">{props.heading}</h1>
      {props.note && <p>{props.note}</p>}
      {error && <FormMessage kind="error">{error}</FormMessage>}
      <Field id="driver-code" label="Driver code">
        <input
          {...describedBy('driver-code', undefined)}
          ref={codeRef}
          name="driverCode"
          autoComplete="username"
          autoCapitalize="characters"
          spellcheck={false}
          maxLength={32}
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
          required
        />
      </Field>
      <Field id="driver-pin" label="PIN" hint="4 to 8 digits">
        <input
          {...describedBy('driver-pin', undefined, true)}
          ref={pinRef}
          name="pin"
          type="password"
          inputMode="numeric"
          pattern="[0-9]{4,8}"
          autoComplete="one-time-code"
          maxLength={8}
          value={pin}
          onInput={(e) => setPin(e.currentTarget.value.replace(/\D/g, ''))}
          required
        />
      </Field>
      <button type="submit" class="primary big" disabled={busy}>
        {busy ? 'Logging in…' : 'Log in'}
      </button>
    </form>
  );
}

/** The server's answer in words a driver can act on. */
export function loginErrorText(err: unknown): string {
  if (!(err instanceof ProblemError)) return 'Logging in failed. Try again.';
  switch (err.code) {
    case 'unauthenticated':
      return 'Wrong driver code or PIN, or this driver is blocked. Check both and try again; if it keeps failing, ask the office.';
    case 'rate-limited':
      return 'Too many attempts. Wait a minute, then try again.';
    case 'server-busy':
      return 'The server is busy. Try again in a few seconds.';
    case 'validation-failed':
      return 'The PIN is 4 to 8 digits, and the driver code is on your badge.';
    case 'network-error':
      return 'No connection to the yard server. Move to where the Wi-Fi is better and try again.';
    default:
      return err.message;
  }
}

/** Over the shift when the server refused the token: log in again, the screen stays as it was. */
export function DriverSessionExpired() {
  if (!session.expired.value) return null;
  // Esc does not close it: there is no going on without logging in (or out).
  return (
    <Dialog id="driver-session" labelledBy="driver-login-heading" onClose={() => undefined}>
      <DriverLogin
        heading="Log in again"
        note="Your login has ended. Your tasks and anything waiting to be sent are kept."
        code={session.username()}
      />
      <button type="button" class="link" onClick={() => session.signOut()}>
        Log in as another driver
      </button>
    </Dialog>
  );
}
