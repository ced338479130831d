import { useState } from 'preact/hooks';
import { ProblemError } from '../../common/api/problem';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { problemText } from '../records/http';
import { sendTestMail } from './data';

/** A test mail through the stored server, with what the server answered. */
export function TestMail() {
  const [to, setTo] = useState('');
  const [result, setResult] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [error, setError] = useState<string | undefined>();
  const sending = useSubmit(async () => {
    setResult(null);
    setError(undefined);
    try {
      const r = await sendTestMail(to.trim());
      setResult(
        r.sent
          ? { kind: 'ok', text: `Sent to ${to.trim()}. The server said: ${r.response ?? 'OK'}` }
          : {
              kind: 'error',
              text: `Not sent: ${r.error ?? 'the server refused it'}. Check the settings above.`,
            },
      );
    } catch (err) {
      const field = err instanceof ProblemError ? err.fieldErrors().to : undefined;
      if (field) setError(field);
      else setResult({ kind: 'error', text: problemText(err, 'test mail') });
    }
  });
  return (
    <form
      class="integrator-form inline"
      aria-labelledby="email-test-heading"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        sending.run();
      }}
    >
      <h3 id="email-test-heading">Send a test mail</h3>
      <div class="records-tools">
        <Field id="email-test-to" label="To" error={error}>
          <input
            {...describedBy('email-test-to', error)}
            type="email"
            value={to}
            disabled={sending.busy}
            onInput={(e) => setTo(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" disabled={sending.busy}>
          {sending.busy ? 'Sending…' : 'Send test'}
        </button>
      </div>
      {result && <FormMessage kind={result.kind}>{result.text}</FormMessage>}
    </form>
  );
}
