import { useEffect, useRef, useState } from 'preact/hooks';
import { FormMessage } from '../../common/components/field';
import { yardDateTime } from '../../common/time';
import { useSubmit } from '../../common/use-submit';
import { problemText } from '../records/http';
import { timeZone } from '../scope';
import { StatusFilterTools } from '../status-filter-tools';
import {
  type DeliveryStatus,
  loadDeliveries,
  replayDelivery,
  type WebhookDelivery,
  type WebhookEndpoint,
} from './data';
import { EVENT_LABELS } from './webhook-form';

const STATUS: Record<DeliveryStatus, string> = {
  pending: 'Waiting',
  delivered: 'Delivered',
  failed: 'Failed',
};

type Attempt = WebhookDelivery['attempts'][number];

/** An attempt's time to the second (retries come seconds apart), in the yard's zone. */
function toTheSecond(iso: string, zone: string): string {
  return new Intl.DateTimeFormat(undefined, {
    timeZone: zone,
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(iso));
}

/** What came back from one attempt, in words: the receiver's status, or why nothing came. */
function answerOf(a: Attempt): string {
  if (a.httpStatus !== null) return `HTTP ${a.httpStatus}`;
  return a.error ? `No answer: ${a.error}` : 'No answer';
}

/**
 * One endpoint's delivery log, newest first: each delivery with every attempt (time, how long, the
 * receiver's status and the start of its answer), the body sent, and Replay (sent again with the
 * same webhook-id; the receiver dedupes by it).
 */
export function WebhookDeliveries(props: {
  endpoint: WebhookEndpoint;
  onClose: () => void;
  onChanged: () => void;
}) {
  const e = props.endpoint;
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [items, setItems] = useState<WebhookDelivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const load = async (cursor?: string) => {
    try {
      const page = await loadDeliveries(e.id, status || undefined, cursor);
      setItems((now) => (cursor ? [...(now ?? []), ...page.items] : page.items));
      setNext(page.nextCursor ?? null);
      setProblem(null);
    } catch (err) {
      setProblem(problemText(err, 'delivery'));
    }
  };
  useEffect(() => {
    load();
  }, [e.id, status]);
  useEffect(() => {
    heading.current?.focus();
  }, [e.id]);
  const replaying = useSubmit(async (d: WebhookDelivery) => {
    setNotice(null);
    try {
      await replayDelivery(e.id, d.id);
      setNotice(`${EVENT_LABELS[d.type]} (${d.webhookId}) is sent again.`);
      props.onChanged();
      await load();
    } catch (err) {
      setProblem(problemText(err, 'delivery'));
    }
  });
  const at = (iso: string | null) => (iso ? yardDateTime(iso, timeZone.value) : '—');
  return (
    <section class="integrator-log" aria-labelledby="deliveries-heading">
      <h3 id="deliveries-heading" tabIndex={-1} ref={heading}>
        Deliveries to {e.url}
      </h3>
      <StatusFilterTools
        status={status}
        allLabel="All deliveries"
        choices={[
          { value: 'failed', label: 'Failed' },
          { value: 'pending', label: 'Waiting' },
          { value: 'delivered', label: 'Delivered' },
        ]}
        onStatus={setStatus}
        reloadLabel="Read the log again"
        onReload={() => {
          load();
          // The endpoint's health in the list above comes from the list's read.
          props.onChanged();
        }}
      >
        <button type="button" onClick={props.onClose}>
          Close the log
        </button>
      </StatusFilterTools>
      {notice && <FormMessage kind="ok">{notice}</FormMessage>}
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {items && items.length === 0 && <p class="muted">Nothing has been sent to this endpoint yet.</p>}
      {items && items.length > 0 && (
        <ol class="deliveries" data-testid="webhook-deliveries">
          {items.map((d) => (
            <li key={d.id} class={`delivery status-${d.status}`}>
              <div class="delivery-head">
                <strong>{EVENT_LABELS[d.type]}</strong> <span class="status">{STATUS[d.status]}</span>{' '}
                <span class="muted">
                  {at(d.createdAt)} · <code>{d.webhookId}</code>
                </span>
                {d.status === 'pending' && d.nextAttemptAt && (
                  <span class="muted"> · next try {at(d.nextAttemptAt)}</span>
                )}
                <button
                  type="button"
                  disabled={replaying.busy}
                  aria-label={`Replay ${EVENT_LABELS[d.type]} ${d.webhookId}`}
                  onClick={() => replaying.run(d)}
                >
                  Replay
                </button>
              </div>
              {d.attempts.length === 0 ? (
                <p class="muted">Not tried yet.</p>
              ) : (
                <table class="records-table attempts">
                  <caption class="visually-hidden">Attempts of {d.webhookId}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Try</th>
                      <th scope="col">When</th>
                      <th scope="col">Took</th>
                      <th scope="col">Status</th>
                      <th scope="col">Answer</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.attempts.map((a) => (
                      <tr key={a.n}>
                        <th scope="row">
                          {a.n}
                          {a.replay ? ' (replay)' : ''}
                        </th>
                        <td>{toTheSecond(a.at, timeZone.value)}</td>
                        <td>{a.durationMs === null ? '—' : `${a.durationMs} ms`}</td>
                        <td>{answerOf(a)}</td>
                        <td class="answer">
                          <code>{a.responseBody ?? ''}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <details>
                <summary>Body sent</summary>
                <pre class="code">{JSON.stringify(d.payload, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
      {next && (
        <button type="button" onClick={() => load(next)}>
          Show older deliveries
        </button>
      )}
    </section>
  );
}
