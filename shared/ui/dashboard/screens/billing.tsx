import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ProblemError } from '../../common/api/problem';
import { billingProblemText, isCloudOwned } from '../../common/api/problem-text';
import { session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { may } from '../access';
import { AdjustmentsPage } from '../billing/adjustments';
import { Configs } from '../billing/configs';
import { useBillingBase } from '../billing/data';
import { InvoicePage } from '../billing/invoice';
import { InvoicesPage } from '../billing/invoices';
import { currentPeriod, shiftPeriod } from '../billing/period';
import { SummaryPage } from '../billing/summary';
import { YardConfigForm } from '../billing/yard-config-form';
import { ownership, timeZone, yard, yards } from '../scope';
import '../billing/billing.css';

const ROOT = '/dashboard/billing';
const PAGES = [
  { href: `${ROOT}/configs`, label: 'Configs' },
  { href: `${ROOT}/summary`, label: 'Summary' },
  { href: `${ROOT}/invoices`, label: 'Invoices' },
  { href: `${ROOT}/adjustments`, label: 'Adjustments' },
] as const;

/**
 * Billing of the chosen yard: configs, the month's summary with its per-day overage table, invoices
 * and adjustments. Sub-pages are addresses under /dashboard/billing/ (period and carrier in the
 * query), so a reload or a shared link opens the same view. At a linked site billing is the cloud's.
 */
export function Billing() {
  const { path, query, route } = useLocation();
  const y = yard.value;
  const tz = timeZone.value;
  const { base, problem, reload } = useBillingBase(y?.id);
  const [editingYard, setEditingYard] = useState(false);
  const readOnly = ownership.value.masterDataReadOnly;
  const canEdit = may.editBilling(session.principal.value?.role) && !readOnly;
  if (!y) return <p>No yard is in your scope: ask an admin to give you one.</p>;

  const sub = path.slice(ROOT.length).replace(/^\/+|\/+$/g, '');
  const [page = 'configs', id] = sub.split('/');
  const period = query.period && /^\d{4}-\d{2}$/.test(query.period) ? query.period : '';
  const carrierId = query.carrier ?? '';
  const go = (href: string, params: Record<string, string> = {}) => {
    const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v)).toString();
    route(q ? `${href}?${q}` : href);
  };
  const current = PAGES.find((p) => p.href.endsWith(`/${page}`))?.href;

  let body: preact.ComponentChildren = <p class="muted">Loading billing…</p>;
  if (problem) {
    body = <FormMessage kind="error">{billingProblemText(problem)}</FormMessage>;
  } else if (base) {
    if (page === 'summary') {
      body = (
        <SummaryPage
          base={base}
          yardId={y.id}
          timeZone={tz}
          canEdit={canEdit}
          period={period || shiftPeriod(currentPeriod(tz), -1)}
          carrierId={carrierId}
          onChoose={(p, c) => go(`${ROOT}/summary`, { period: p, carrier: c })}
        />
      );
    } else if (page === 'invoices' && id) {
      body = (
        <InvoicePage
          id={id}
          base={base}
          yards={yards.value}
          canEdit={canEdit}
          back={() => go(`${ROOT}/invoices`)}
          addAdjustment={(inv) => go(`${ROOT}/adjustments`, { period: inv.period, carrier: inv.carrierId })}
        />
      );
    } else if (page === 'invoices') {
      body = (
        <InvoicesPage
          base={base}
          yards={yards.value}
          yardId={y.id}
          timeZone={tz}
          canEdit={canEdit}
          open={(invoiceId) => go(`${ROOT}/invoices/${invoiceId}`)}
        />
      );
    } else if (page === 'adjustments') {
      body = (
        <AdjustmentsPage
          base={base}
          yardId={y.id}
          timeZone={tz}
          canEdit={canEdit}
          period={period || shiftPeriod(currentPeriod(tz), -1)}
          carrierId={carrierId}
          onChoose={(p, c) => go(`${ROOT}/adjustments`, { period: p, carrier: c })}
        />
      );
    } else if (editingYard && canEdit) {
      body = (
        <YardConfigForm
          yardId={y.id}
          yardName={y.name}
          config={base.config}
          onCancel={() => setEditingYard(false)}
          onSaved={() => {
            setEditingYard(false);
            reload();
          }}
        />
      );
    } else {
      body = (
        <Configs
          base={base}
          yardName={y.name}
          canEdit={canEdit}
          onChanged={reload}
          onEditYard={() => setEditingYard(true)}
        />
      );
    }
  }

  // A linked site answers every billing call, reads included, with 409 cloud-owned: nothing to show here.
  if (isCloudOwned(problem)) {
    return (
      <section aria-labelledby="billing-heading" class="billing">
        <h1 id="billing-heading">Billing: {y.name}</h1>
        <div class="read-only-note" role="status">
          <p>
            <strong>Billing is managed in the cloud.</strong> Every site's movements meet there, so configs,
            summaries, invoices and adjustments live there too. Open the dashboard at the cloud to see the
            figures and to change them.
          </p>
          {problem instanceof ProblemError && <p class="muted">The site answered: “{problem.message}”</p>}
        </div>
      </section>
    );
  }
  return (
    <section aria-labelledby="billing-heading" class="billing">
      <h1 id="billing-heading">Billing: {y.name}</h1>
      {readOnly && (
        <p class="read-only-note">
          Billing is managed in the cloud: what is shown here is read-only. Change it at the cloud's
          dashboard.
        </p>
      )}
      <nav aria-label="Billing pages" class="sub-nav">
        {PAGES.map((p) => (
          <a
            key={p.href}
            href={p.href}
            aria-current={p.href === (current ?? PAGES[0].href) ? 'page' : undefined}
          >
            {p.label}
          </a>
        ))}
      </nav>
      {body}
    </section>
  );
}
