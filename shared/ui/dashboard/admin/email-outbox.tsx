import { useEffect, useState } from 'preact/hooks';
import { FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import { problemText } from '../records/http';
import { timeZone } from '../scope';
import { StatusFilterTools } from '../status-filter-tools';
import { type EmailMessage, type EmailStatus, loadEmailMessages, retryEmail } from './data';

const KIND: Record<EmailMessage['kind'], string> = {
  confirmation: 'Confirmation',
  change: 'Change',
  cancellation: 'Cancellation',
  no_show: 'No-show',
};

const STATUS: Record<EmailStatus, string> = {
  pending: 'Waiting',
  sent: 'Sent',
  failed: 'Failed',
  skipped: 'Not sent: no contact email',
};

/**
 * The mails to carriers, newest first, with why one is not sent yet; a failed one (24 hours of
 * retries) can be put back in the queue. `generation` changes when the page wants a fresh read.
 */
export function EmailOutbox(props: { generation: number; onChanged: () => void }) {
  const [status, setStatus] = useState<EmailStatus | ''>('');
  const [items, setItems] = useState<EmailMessage[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = () =>
    loadEmailMessages(status || undefined).then(
      (list) => {
        setItems(list);
        setProblem(null);
      },
      (err) => setProblem(problemText(err, 'mail')),
    );
  useEffect(() => {
    load();
  }, [status, props.generation]);
  const retrying = useSubmit(async (m: EmailMessage) => {
    setNotice(null);
    try {
      await retryEmail(m.id);
      setNotice(`The ${KIND[m.kind].toLowerCase()} mail to ${m.toAddress ?? 'the carrier'} is queued again.`);
      props.onChanged();
      await load();
    } catch (err) {
      setProblem(problemText(err, 'mail'));
    }
  });
  const at = (iso: string | null) => (iso ? yardDateTime(iso, timeZone.value) : '—');
  return (
    <section class="integrator-log" aria-labelledby="email-outbox-heading">
      <h3 id="email-outbox-heading">Mails to carriers</h3>
      <StatusFilterTools
        status={status}
        allLabel="All mails"
        choices={[
          { value: 'failed', label: 'Failed' },
          { value: 'pending', label: 'Waiting' },
          { value: 'sent', label: 'Sent' },
          { value: 'skipped', label: 'Not sent: no contact email' },
        ]}
        onStatus={setStatus}
        reloadLabel="Read the list again"
        onReload={() => {
          load();
          // The counts above the form come from the settings' read.
          props.onChanged();
        }}
      />
      {notice && <FormMessage kind="ok">{notice}</FormMessage>}
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {items && items.length === 0 && <p class="muted">No mails here yet.</p>}
      {items && items.length > 0 && (
        <table class="records-table" data-testid="email-outbox">
          <caption class="visually-hidden">Mails to carriers ({items.length})</caption>
          <thead>
            <tr>
              <th scope="col">Mail</th>
              <th scope="col">To</th>
              <th scope="col">Status</th>
              <th scope="col">Tries</th>
              <th scope="col">Written</th>
              <th scope="col">Sent, or next try</th>
              <th scope="col">Last error</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((m) => (
              <tr key={m.id}>
                <th scope="row">{KIND[m.kind]}</th>
                <td>{m.toAddress ?? '—'}</td>
                <td class={`status-${m.status}`}>{STATUS[m.status]}</td>
                <td>{m.attempts}</td>
                <td>{at(m.createdAt)}</td>
                <td>{m.sentAt ? at(m.sentAt) : m.status === 'pending' ? at(m.nextAttemptAt) : '—'}</td>
                <td class="answer">{m.lastError ?? ''}</td>
                <td class="row-actions">
                  {m.status === 'failed' && (
                    <button
                      type="button"
                      disabled={retrying.busy}
                      aria-label={`Retry the ${KIND[m.kind].toLowerCase()} mail to ${m.toAddress ?? 'the carrier'}`}
                      onClick={() => retrying.run(m)}
                    >
                      Retry
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
