import { useState } from 'preact/hooks';
import { problemText } from '../../common/api/problem-text';
import { useSubmit } from '../../common/use-submit';
import { retryDeadLetters } from './data';
import { count } from './site-words';

/**
 * A site's dead letters (synced rows that failed to apply) and, for an organisation-wide admin
 * (the route's rule: `may.retryDeadLetters`), Retry: the rows are applied again, the ones that now
 * apply are removed. `peer` is the site at the cloud; at an edge every dead letter is the cloud's.
 */
export function DeadLetters(props: {
  n: number;
  peer?: string;
  siteName: string;
  mayRetry: boolean;
  onDone: () => void;
}) {
  const [result, setResult] = useState<{ tone: 'ok' | 'bad'; text: string } | null>(null);
  const retrying = useSubmit(async () => {
    try {
      const r = await retryDeadLetters(props.peer);
      const left = r.retried - r.applied;
      setResult({
        tone: left > 0 ? 'bad' : 'ok',
        text:
          r.retried === 0
            ? 'Nothing left to retry.'
            : `${count.format(r.applied)} of ${count.format(r.retried)} applied` +
              (left > 0 ? `; ${count.format(left)} still refused: see the dead letters in Admin.` : '.'),
      });
      props.onDone();
    } catch (err) {
      setResult({ tone: 'bad', text: problemText(err) });
    }
  });
  const busy = retrying.busy;
  if (props.n === 0 && !result) return <span class="muted">none</span>;
  const retry = () => {
    setResult(null);
    retrying.run();
  };
  return (
    <span class="dead-letters">
      {props.n > 0 && <span class="badge bad">{count.format(props.n)}</span>}
      {props.n > 0 && props.mayRetry && (
        <button
          type="button"
          class="small"
          disabled={busy}
          onClick={retry}
          aria-label={`Retry the dead letters of ${props.siteName}`}
        >
          {busy ? 'Retrying…' : 'Retry'}
        </button>
      )}
      {props.n > 0 && !props.mayRetry && (
        <span class="muted small-note">An organisation-wide admin can retry them.</span>
      )}
      {result && (
        <span class={result.tone === 'ok' ? 'retry-ok' : 'retry-bad'} role="status">
          {result.text}
        </span>
      )}
    </span>
  );
}
