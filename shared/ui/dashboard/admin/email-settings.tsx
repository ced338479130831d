import { useEffect, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import { problemText } from '../records/http';
import type { Loaded } from '../records/types';
import { timeZone } from '../scope';
import { type EmailSettings, type EmailSettingsPut, loadEmailSettings, saveEmailSettings } from './data';
import { EmailOutbox } from './email-outbox';
import { TestMail } from './email-test-mail';
import '../records/records.css';
import './integrators.css';

/** The form as typed: text for every input, the password empty unless a new one is typed. */
interface Typed {
  enabled: boolean;
  host: string;
  port: string;
  security: 'tls' | 'starttls' | 'none';
  username: string;
  password: string;
  removePassword: boolean;
  fromAddress: string;
  fromName: string;
  replyTo: string;
}

const SECURITY: { value: Typed['security']; label: string }[] = [
  { value: 'starttls', label: 'STARTTLS (usually port 587)' },
  { value: 'tls', label: 'TLS from the start (usually port 465)' },
  { value: 'none', label: 'None: plain text (lab servers only)' },
];

function typedOf(s: EmailSettings): Typed {
  return {
    enabled: s.configured ? s.enabled : true,
    host: s.host ?? '',
    port: s.port === null ? '587' : String(s.port),
    security: s.security ?? 'starttls',
    username: s.username ?? '',
    password: '',
    removePassword: false,
    fromAddress: s.fromAddress ?? '',
    fromName: s.fromName ?? '',
    replyTo: s.replyTo ?? '',
  };
}

/**
 * What is sent: the password only when one is typed (left out, the server keeps the stored one),
 * null when the admin removes it. Empty optional fields are null.
 */
function bodyOf(t: Typed): EmailSettingsPut {
  const orNull = (v: string) => (v.trim() === '' ? null : v.trim());
  const port = Number(t.port);
  return {
    enabled: t.enabled,
    host: t.host.trim(),
    port: Number.isInteger(port) ? port : (t.port as unknown as number),
    security: t.security,
    username: orNull(t.username),
    ...(t.removePassword ? { password: null } : t.password !== '' ? { password: t.password } : {}),
    fromAddress: t.fromAddress.trim(),
    fromName: orNull(t.fromName),
    replyTo: orNull(t.replyTo),
  };
}

/** Admin > Email: the SMTP server mail to carriers goes through, a test mail, and the outbox. */
export function EmailScreen() {
  const [loaded, setLoaded] = useState<Loaded<EmailSettings> | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // Bumped after a save or a retry, so the outbox reads again.
  const [generation, setGeneration] = useState(0);
  const reload = () =>
    loadEmailSettings().then(
      (l) => {
        setLoaded(l);
        setProblem(null);
      },
      (err) => setProblem(problemText(err, 'email settings')),
    );
  useEffect(() => {
    reload();
  }, []);
  const s = loaded?.record;
  return (
    <section class="records integrators" aria-labelledby="email-heading">
      <h2 id="email-heading">Email to carriers</h2>
      <p class="muted">
        Confirmations, changes, cancellations and no-shows go to each carrier’s contact email, with the gate
        pass attached. Nothing is sent until a server is saved here; a booking never waits for the mail.
      </p>
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {!s && !problem && <p class="muted">Loading the email settings…</p>}
      {s && (
        <p class="integrator-state" data-testid="email-state">
          {!s.configured
            ? 'Email is off: no server is set.'
            : s.enabled
              ? `Email is on, through ${s.host}.`
              : `Email is off (the server ${s.host} is kept).`}{' '}
          {s.queue.pending} waiting, {s.queue.failed} failed
          {s.queue.lastSentAt ? `, last sent ${yardDateTime(s.queue.lastSentAt, timeZone.value)}` : ''}.
          {s.queue.lastError && <span class="error-text"> Latest error: {s.queue.lastError}</span>}
        </p>
      )}
      {loaded && (
        <SettingsForm
          key={loaded.record.version}
          loaded={loaded}
          onSaved={(l) => {
            setLoaded(l);
            setGeneration((g) => g + 1);
          }}
          onStale={reload}
        />
      )}
      {s?.configured && <TestMail />}
      <EmailOutbox generation={generation} onChanged={reload} />
    </section>
  );
}

function SettingsForm(props: {
  loaded: Loaded<EmailSettings>;
  onSaved: (l: Loaded<EmailSettings>) => void;
  onStale: () => void;
}) {
  const stored = props.loaded.record;
  const [t, setT] = useState<Typed>(() => typedOf(stored));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const set = <K extends keyof Typed>(k: K, v: Typed[K]) => setT((now) => ({ ...now, [k]: v }));
  const saving = useSubmit(async () => {
    setErrors({});
    setMessage(null);
    try {
      const saved = await saveEmailSettings(bodyOf(t), props.loaded.etag);
      props.onSaved(saved);
    } catch (err) {
      if (err instanceof ProblemError && err.status === 412) {
        setMessage({ kind: 'error', text: problemText(err, 'email settings') });
        props.onStale();
      } else if (err instanceof ProblemError && Object.keys(err.fieldErrors()).length > 0) {
        setErrors(err.fieldErrors());
        setMessage({ kind: 'error', text: 'Some fields need a change: see the messages beside them.' });
      } else if (err instanceof ProblemError && err.code === 'secret-required') {
        setErrors({ password: err.message });
        setMessage({ kind: 'error', text: err.message });
      } else setMessage({ kind: 'error', text: problemText(err, 'email settings') });
    }
  });
  const text = (
    name: keyof Typed,
    label: string,
    opts: { type?: 'text' | 'password' | 'email'; hint?: string } = {},
  ) => {
    const id = `email-${name}`;
    return (
      <Field id={id} label={label} error={errors[name]} {...(opts.hint ? { hint: opts.hint } : {})}>
        <input
          {...describedBy(id, errors[name], Boolean(opts.hint))}
          type={(opts.type ?? 'text') as 'text'}
          autoComplete={opts.type === 'password' ? 'new-password' : 'off'}
          value={t[name] as string}
          disabled={saving.busy}
          onInput={(e) => set(name, e.currentTarget.value as never)}
        />
      </Field>
    );
  };
  const hasPassword = stored.password !== null;
  return (
    <form
      class="integrator-form"
      aria-labelledby="email-server-heading"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        saving.run();
      }}
    >
      <h3 id="email-server-heading">Mail server (SMTP)</h3>
      {message && <FormMessage kind={message.kind}>{message.text}</FormMessage>}
      <div class="field check">
        <label for="email-enabled">
          <input
            id="email-enabled"
            type="checkbox"
            checked={t.enabled}
            disabled={saving.busy}
            onChange={(e) => set('enabled', e.currentTarget.checked)}
          />{' '}
          Send email to carriers
        </label>
      </div>
      <div class="record-fields">
        {text('host', 'Server (required)', { hint: 'host name or address, e.g. smtp.example.com' })}
        {text('port', 'Port (required)')}
        <Field id="email-security" label="Security" error={errors.security}>
          <select
            {...describedBy('email-security', errors.security)}
            value={t.security}
            disabled={saving.busy}
            onChange={(e) => set('security', e.currentTarget.value as Typed['security'])}
          >
            {SECURITY.map((o) => (
              <option value={o.value}>{o.label}</option>
            ))}
          </select>
        </Field>
        {text('username', 'User name')}
        {text('password', 'Password', {
          type: 'password',
          hint: hasPassword
            ? 'A password is stored: leave blank to keep it. A new server, port or security needs it again.'
            : 'none stored',
        })}
        {hasPassword && (
          <div class="field check">
            <label for="email-remove-password">
              <input
                id="email-remove-password"
                type="checkbox"
                checked={t.removePassword}
                disabled={saving.busy}
                onChange={(e) => set('removePassword', e.currentTarget.checked)}
              />{' '}
              Remove the stored password
            </label>
          </div>
        )}
        {text('fromAddress', 'From address (required)', { type: 'email' })}
        {text('fromName', 'From name', { hint: 'e.g. North Yard gate' })}
        {text('replyTo', 'Reply-to address', { type: 'email' })}
      </div>
      <div class="actions">
        <button type="submit" class="button primary" disabled={saving.busy}>
          Save email settings
        </button>
        {stored.updatedAt && (
          <span class="muted">Last saved {yardDateTime(stored.updatedAt, timeZone.value)}</span>
        )}
      </div>
    </form>
  );
}
