import { useState } from 'preact/hooks';
import { submitProblemText } from '../../common/api/problem-text';
import { describedBy, Field, FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { serverMode } from '../scope';
import {
  type Carrier,
  carrierName,
  type GenerateAllResult as GenerateAll,
  generateAllInvoices,
  generateInvoice,
} from './data';
import { periodLabel, recentPeriods } from './period';

/**
 * Generate a draft invoice for a carrier and a past month. At the cloud a yard whose site has not
 * synced past the month's end is refused (409 site-not-synced): the answer's words are shown, with
 * the choice to generate anyway.
 */
export function GenerateForm(props: {
  yardId: string;
  timeZone: string;
  carriers: Carrier[];
  onGenerated: (invoiceId: string) => void;
  onGeneratedAll: () => void;
}) {
  const past = recentPeriods(props.timeZone).slice(1);
  const [carrierId, setCarrierId] = useState('');
  const [period, setPeriod] = useState(past[0] ?? '');
  const [carrierError, setCarrierError] = useState<string | undefined>();
  const [result, setResult] = useState<GenerateAll | null>(null);
  // Which button ran last: only the one carrier's draft offers "Generate anyway" on site-not-synced.
  const [all, setAll] = useState(false);
  const send = useSubmit(async (every: boolean, force: boolean) => {
    if (every) {
      setResult(await generateAllInvoices(force));
      props.onGeneratedAll();
      return;
    }
    const invoice = await generateInvoice({
      yardId: props.yardId,
      carrierId,
      period,
      ...(force ? { force: true } : {}),
    });
    props.onGenerated(invoice.id);
  });
  const busy = send.busy;
  const problem = all ? null : send.problem;
  const refused = submitProblemText(send);

  const generate = (force: boolean) => {
    if (!carrierId) {
      setCarrierError('Choose the carrier to invoice.');
      return;
    }
    setAll(false);
    send.run(false, force);
  };

  /** `force`: "generate anyway", also for the yards that wait for their site (what the cloud has now). */
  const generateAll = (force: boolean) => {
    setAll(true);
    send.run(true, force);
  };

  return (
    <form
      class="panel generate-form"
      aria-labelledby="generate-heading"
      onSubmit={(e) => {
        e.preventDefault();
        generate(false);
      }}
      noValidate
    >
      <h3 id="generate-heading">Generate an invoice</h3>
      <p class="muted">
        A draft from the month's activity; check it, then issue it. Only ended months.
        {serverMode.value === 'cloud' &&
          ' A yard whose site has not yet sent the whole month to the cloud (offline, or still sending queued changes) is not invoiced: you are told why, and may wait or generate anyway.'}
      </p>
      {refused && <FormMessage kind="error">{refused}</FormMessage>}
      <div class="filters">
        <Field id="generate-carrier" label="Carrier" error={carrierError}>
          <select
            {...describedBy('generate-carrier', carrierError)}
            value={carrierId}
            onChange={(e) => {
              setCarrierId(e.currentTarget.value);
              setCarrierError(undefined);
            }}
          >
            <option value="">Choose a carrier…</option>
            {props.carriers.map((c) => (
              <option key={c.id} value={c.id}>
                {carrierName(props.carriers, c.id)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="generate-period" label="Month">
          <select id="generate-period" value={period} onChange={(e) => setPeriod(e.currentTarget.value)}>
            {past.map((p) => (
              <option key={p} value={p}>
                {periodLabel(p)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Generate draft
        </button>
        {problem?.code === 'site-not-synced' && (
          <button type="button" onClick={() => generate(true)} disabled={busy}>
            Generate anyway
          </button>
        )}
        <button type="button" onClick={() => generateAll(false)} disabled={busy}>
          Generate all for last month
        </button>
      </div>
      {result && <GenerateAllResult result={result} busy={busy} anyway={() => generateAll(true)} />}
    </form>
  );
}

/**
 * What "Generate all" did, and the yards it left out because their site has not sent the whole month
 * yet: each with why, in words, and one "Generate anyway" that invoices them from what the cloud has.
 */
function GenerateAllResult(props: { result: GenerateAll; busy: boolean; anyway: () => void }) {
  const { created, skipped, waiting } = props.result;
  const made = `${created.length} draft${created.length === 1 ? '' : 's'} made`;
  const summary = `${made}; ${skipped.filter((s) => s.reason === 'exists').length} already invoiced; ${
    skipped.filter((s) => s.reason === 'no-charges').length
  } with no charges.`;
  if (waiting.length === 0) return <FormMessage kind="ok">{summary}</FormMessage>;
  return (
    <div class="waiting-yards" role="status">
      <FormMessage kind="warn">
        {summary} {waiting.length === 1 ? 'One yard is' : `${waiting.length} yards are`} not invoiced yet: the
        cloud may not have all of the month's activity there.
      </FormMessage>
      <ul aria-label="Yards not invoiced yet">
        {waiting.map((w) => (
          <li key={w.yardId}>
            <strong>
              Yard {w.yardCode}, {periodLabel(w.period)}:
            </strong>{' '}
            {w.message}
          </li>
        ))}
      </ul>
      <p class="muted">
        Wait until the site is online and has sent its changes, then generate all again; or generate anyway if
        you know nothing is missing (the drafts can be recalculated later).
      </p>
      <div class="actions">
        <button type="button" onClick={props.anyway} disabled={props.busy}>
          Generate anyway
        </button>
      </div>
    </div>
  );
}
