import { useEffect, useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { session } from '../../common/auth';
import { Dialog } from '../../common/components/dialog';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { problemText } from '../records/http';
import { carriers, loadCarriers } from '../records/lookups';
import { yards } from '../scope';
import {
  createWebhook,
  updateWebhook,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookWithSecret,
} from './data';

/** Each event type in words, in the order a receiver thinks of them (docs/webhooks.md "Events"). */
export const EVENT_LABELS: Record<WebhookEventType, string> = {
  'appointment.created': 'Appointment booked',
  'appointment.changed': 'Appointment changed',
  'appointment.cancelled': 'Appointment cancelled',
  'appointment.arrived': 'Truck arrived for an appointment',
  'appointment.docked': 'Trailer at the door',
  'appointment.completed': 'Appointment completed',
  'appointment.no_show': 'No-show',
  'movement.created': 'Gate check-in or check-out',
  'invoice.issued': 'Invoice issued',
  'invoice.voided': 'Invoice voided',
};
const EVENT_TYPES = Object.keys(EVENT_LABELS) as WebhookEventType[];

interface Option {
  value: string;
  label: string;
}

/**
 * Checkboxes for a list of choices; with `all`, a first box meaning "every one" (the API's null),
 * and the single choices shown once it is unticked.
 */
function Choices(props: {
  id: string;
  legend: string;
  options: Option[];
  value: string[] | null;
  all?: string;
  error: string | undefined;
  hint?: string;
  disabled: boolean;
  onChange: (v: string[] | null) => void;
}) {
  const chosen = props.value;
  const toggle = (v: string, on: boolean) => {
    const next = new Set(chosen ?? []);
    if (on) next.add(v);
    else next.delete(v);
    props.onChange(props.options.map((o) => o.value).filter((o) => next.has(o)));
  };
  return (
    <fieldset
      class={props.error ? 'field yards has-error' : 'field yards'}
      aria-describedby={props.error ? `${props.id}-error` : undefined}
    >
      <legend>{props.legend}</legend>
      {props.all && (
        <label>
          <input
            type="checkbox"
            checked={chosen === null}
            disabled={props.disabled}
            onChange={(e) => props.onChange(e.currentTarget.checked ? null : [])}
          />{' '}
          {props.all}
        </label>
      )}
      {chosen !== null &&
        props.options.map((o) => (
          <label key={o.value}>
            <input
              type="checkbox"
              checked={chosen.includes(o.value)}
              disabled={props.disabled}
              onChange={(e) => toggle(o.value, e.currentTarget.checked)}
            />{' '}
            {o.label}
          </label>
        ))}
      {props.hint && !props.error && <small class="hint">{props.hint}</small>}
      {props.error && (
        <small id={`${props.id}-error`} class="error" role="alert">
          {props.error}
        </small>
      )}
    </fieldset>
  );
}

/** A new endpoint, or a change to one (only what changed is sent, with the version it was read at). */
export function WebhookForm(props: {
  opened: WebhookEndpoint | null;
  onSaved: (saved: WebhookWithSecret, created: boolean) => void;
  onClose: () => void;
}) {
  const e0 = props.opened;
  const [url, setUrl] = useState(e0?.url ?? 'https://');
  const [description, setDescription] = useState(e0?.description ?? '');
  const [events, setEvents] = useState<string[] | null>(e0?.events ?? []);
  // An admin limited to some yards may not choose "every yard" (the server refuses it): such an
  // admin starts from all of their own yards and picks among them.
  const scope = session.principal.value?.yardIds ?? null;
  const [yardIds, setYardIds] = useState<string[] | null>(e0 ? e0.yardIds : scope && [...scope]);
  const [carrierIds, setCarrierIds] = useState<string[] | null>(e0?.carrierIds ?? null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    loadCarriers();
  }, []);
  const saving = useSubmit(async () => {
    setErrors({});
    setMessage(null);
    const body = {
      url: url.trim(),
      description: description.trim(),
      events: (events ?? []) as WebhookEventType[],
      yardIds,
      carrierIds,
    };
    try {
      if (!e0) {
        props.onSaved(await createWebhook({ ...body, enabled: true }), true);
        return;
      }
      const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
      const changed = Object.fromEntries(
        Object.entries(body).filter(
          ([k, v]) => !same(v, (e0 as unknown as Record<string, unknown>)[k] ?? ''),
        ),
      );
      if (Object.keys(changed).length === 0) {
        setMessage('Nothing changed: there is nothing to save.');
        return;
      }
      props.onSaved(await updateWebhook(e0, changed), false);
    } catch (err) {
      if (err instanceof ProblemError && Object.keys(err.fieldErrors()).length > 0) {
        setErrors(err.fieldErrors());
        setMessage('Some fields need a change: see the messages beside them.');
      } else if (err instanceof ProblemError && err.code === 'address-refused') {
        setErrors({ url: err.message });
        setMessage(err.message);
      } else setMessage(problemText(err, 'webhook endpoint'));
    }
  });
  const busy = saving.busy;
  return (
    <Dialog
      id="webhook-form"
      class="record-form"
      title={e0 ? `Edit the endpoint ${e0.url}` : 'New webhook endpoint'}
      onClose={props.onClose}
    >
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          saving.run();
        }}
      >
        {message && <FormMessage kind="error">{message}</FormMessage>}
        <div class="record-fields">
          <Field
            id="webhook-url"
            label="URL (required)"
            error={errors.url}
            hint="https on a public address; the receiver’s own system"
          >
            <input
              {...describedBy('webhook-url', errors.url, true)}
              type="url"
              value={url}
              disabled={busy}
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
          </Field>
          <Field id="webhook-description" label="Description" error={errors.description}>
            <input
              {...describedBy('webhook-description', errors.description)}
              value={description}
              disabled={busy}
              onInput={(e) => setDescription(e.currentTarget.value)}
            />
          </Field>
          <Choices
            id="webhook-events"
            legend="Events to send (at least one)"
            options={EVENT_TYPES.map((t) => ({ value: t, label: EVENT_LABELS[t] }))}
            value={events}
            error={errors.events}
            disabled={busy}
            onChange={setEvents}
          />
          <Choices
            id="webhook-yards"
            legend="Yards"
            all={scope === null ? 'Every yard' : undefined}
            options={yards.value.map((y) => ({ value: y.id, label: `${y.name} (${y.code})` }))}
            value={yardIds}
            error={errors.yardIds}
            disabled={busy}
            onChange={setYardIds}
          />
          <Choices
            id="webhook-carriers"
            legend="Carriers"
            all="Every carrier"
            hint="A carrier’s own system should get only that carrier’s events."
            options={(carriers.value ?? []).map((c) => ({ value: c.id, label: c.name }))}
            value={carrierIds}
            error={errors.carrierIds}
            disabled={busy}
            onChange={setCarrierIds}
          />
        </div>
        <div class="actions">
          <button type="submit" class="button primary" disabled={busy}>
            {e0 ? 'Save changes' : 'Create endpoint'}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The signing secret, once (on create or rotate), with a copy button. */
export function SecretOnce(props: { endpoint: WebhookWithSecret }) {
  const [copied, setCopied] = useState<string | null>(null);
  const secret = props.endpoint.secret ?? '';
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused by the browser: select the secret and copy it by hand.');
    }
  };
  return (
    <div role="status" class="secret-once">
      <h3>The signing secret for {props.endpoint.url}</h3>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> The receiver verifies each request’s
        signature with it (Standard Webhooks). If it is lost, make a new secret (the old one then stops).
      </p>
      <p class="secret">
        <span class="visually-hidden">Signing secret: </span>
        <code data-testid="webhook-secret">{secret}</code>
        <button type="button" onClick={copy}>
          Copy secret
        </button>
        {copied && <span>{copied}</span>}
      </p>
    </div>
  );
}
