import { useEffect, useState } from 'preact/hooks';
import { Dialog } from '../../common/components/dialog';
import { FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import { problemText } from '../records/http';
import { carrierName, loadCarriers } from '../records/lookups';
import { timeZone } from '../scope';
import {
  deleteWebhook,
  loadWebhooks,
  updateWebhook,
  type WebhookEndpoint,
  type WebhookWithSecret,
} from './data';
import { yardScopeText } from './users';
import { WebhookDeliveries } from './webhook-deliveries';
import { EVENT_LABELS, SecretOnce, WebhookForm } from './webhook-form';
import '../records/records.css';
import './integrators.css';

/** A confirmation before something that cannot be taken back (a delete, a new secret). */
interface Confirm {
  endpoint: WebhookEndpoint;
  question: string;
  button: string;
  run: () => Promise<unknown>;
  done: string;
}

/**
 * Admin > Webhooks (docs/webhooks.md): the endpoints with their health; create (the secret is shown
 * once), edit, pause, rotate the secret, delete; and each endpoint's delivery log with replay.
 */
export function WebhooksScreen() {
  const [items, setItems] = useState<WebhookEndpoint[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [secret, setSecret] = useState<WebhookWithSecret | null>(null);
  const [form, setForm] = useState<{ opened: WebhookEndpoint | null } | null>(null);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [log, setLog] = useState<WebhookEndpoint | null>(null);
  const load = () =>
    loadWebhooks().then(
      (list) => {
        setItems(list);
        setProblem(null);
      },
      (err) => setProblem(problemText(err, 'webhook endpoint')),
    );
  useEffect(() => {
    load();
    loadCarriers();
  }, []);
  const acting = useSubmit(async (run: () => Promise<unknown>, done: string) => {
    setNotice(null);
    try {
      const out = await run();
      if (out && typeof out === 'object' && 'secret' in out && (out as WebhookWithSecret).secret) {
        setSecret(out as WebhookWithSecret);
      }
      setNotice(done);
      setConfirm(null);
      await load();
    } catch (err) {
      setConfirm(null);
      setProblem(problemText(err, 'webhook endpoint'));
    }
  });
  const pause = (e: WebhookEndpoint) =>
    acting.run(
      () => updateWebhook(e, { enabled: !e.enabled }),
      e.enabled
        ? `Paused ${e.url}: its deliveries wait until it is enabled again.`
        : `Enabled ${e.url}: waiting deliveries are sent.`,
    );
  const filters = (e: WebhookEndpoint) => {
    const carriersText = e.carrierIds === null ? 'every carrier' : e.carrierIds.map(carrierName).join(', ');
    return `${yardScopeText(e.yardIds)}; ${carriersText}`;
  };
  return (
    <section class="records integrators" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p class="muted">
        Carriers’ and shippers’ own systems are told what happens to appointments, at the gates and to
        invoices, signed with each endpoint’s secret. Failed deliveries are retried for 24 hours.
      </p>
      <div class="records-tools">
        <button type="button" class="button primary" onClick={() => setForm({ opened: null })}>
          New endpoint
        </button>
      </div>
      {notice && <FormMessage kind="ok">{notice}</FormMessage>}
      {secret && <SecretOnce endpoint={secret} />}
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {!items && !problem && <p class="muted">Loading the endpoints…</p>}
      {items && items.length === 0 && (
        <p class="muted">No endpoints yet. Add one with “New endpoint” for each receiving system.</p>
      )}
      {items && items.length > 0 && (
        <table class="records-table" data-testid="webhook-endpoints">
          <caption>Endpoints ({items.length})</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Only for</th>
              <th scope="col">Status</th>
              <th scope="col">Health</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.id}>
                <th scope="row">
                  <span class="url">{e.url}</span>
                  {e.description && <small class="muted block">{e.description}</small>}
                </th>
                <td>{e.events.map((t) => EVENT_LABELS[t]).join(', ')}</td>
                <td>{filters(e)}</td>
                <td>{e.enabled ? 'Enabled' : 'Paused'}</td>
                <td>
                  {e.health.pending} waiting, {e.health.failed} failed
                  <small class="block muted">
                    {e.health.lastDeliveredAt
                      ? `Last delivered ${yardDateTime(e.health.lastDeliveredAt, timeZone.value)}`
                      : 'Nothing delivered yet'}
                  </small>
                  {e.health.lastError && (
                    <small class="block error-text">Last error: {e.health.lastError}</small>
                  )}
                </td>
                <td class="row-actions">
                  <button type="button" aria-label={`Deliveries to ${e.url}`} onClick={() => setLog(e)}>
                    Deliveries
                  </button>
                  <button type="button" aria-label={`Edit ${e.url}`} onClick={() => setForm({ opened: e })}>
                    Edit
                  </button>
                  <button
                    type="button"
                    aria-label={`${e.enabled ? 'Pause' : 'Enable'} ${e.url}`}
                    disabled={acting.busy}
                    onClick={() => pause(e)}
                  >
                    {e.enabled ? 'Pause' : 'Enable'}
                  </button>
                  <button
                    type="button"
                    aria-label={`New secret for ${e.url}`}
                    onClick={() =>
                      setConfirm({
                        endpoint: e,
                        question: `Make a new signing secret for ${e.url}? The old one stops at once: the receiver must be given the new one.`,
                        button: 'Make a new secret',
                        run: () => updateWebhook(e, { rotateSecret: true }),
                        done: `${e.url} has a new secret.`,
                      })
                    }
                  >
                    New secret
                  </button>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete ${e.url}`}
                    onClick={() =>
                      setConfirm({
                        endpoint: e,
                        question: `Delete the endpoint ${e.url}? What is still waiting for it is given up; this cannot be undone.`,
                        button: 'Delete endpoint',
                        run: () => deleteWebhook(e.id),
                        done: `Deleted the endpoint ${e.url}.`,
                      })
                    }
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {log && <WebhookDeliveries endpoint={log} onClose={() => setLog(null)} onChanged={load} />}
      {form && (
        <WebhookForm
          opened={form.opened}
          onClose={() => setForm(null)}
          onSaved={(saved, created) => {
            setForm(null);
            setSecret(created ? saved : null);
            setNotice(created ? `Created the endpoint ${saved.url}.` : `Saved ${saved.url}.`);
            load();
          }}
        />
      )}
      {confirm && (
        <Dialog id="webhook-confirm" title="Are you sure?" onClose={() => setConfirm(null)}>
          <p>{confirm.question}</p>
          <div class="actions">
            <button
              type="button"
              class="button primary danger"
              disabled={acting.busy}
              onClick={() => acting.run(confirm.run, confirm.done)}
            >
              {confirm.button}
            </button>
            <button type="button" onClick={() => setConfirm(null)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
