import type { BillingRoutes } from '../place.js';
import {
  SummaryAggregateOut,
  SummaryAggregateQuery,
  SummaryGenerateIn,
  SummaryGeneratePastIn,
  SummaryListOut,
  ToBeCompletedOut,
  ToBeCompletedQuery,
} from './schema.js';

const TAG = 'Billing';
const BILLING = ['admin', 'billing'] as const;

export function registerSummaryRoutes(r: BillingRoutes): void {
  r.add({
    method: 'post',
    path: '/api/billing/summary/generate-all',
    tag: TAG,
    summary: 'Generate all billing summaries for the ongoing period',
    description:
      'For every yard with a billing config (in your yard scope), the ongoing period in the yard’s time zone, every carrier with a carrier config or activity in it. Each summary replaces the stored one.',
    access: BILLING,
    response: { schema: SummaryListOut },
    errors: [409],
    handler: ({ principal }, { summaries }) => summaries.generateAll(principal),
  });

  r.add({
    method: 'post',
    path: '/api/billing/summary/generate',
    tag: TAG,
    summary: 'Generate billing summary for the ongoing period (`yardId`, `carrierId?`)',
    description:
      'The window is the start of the period to now: today’s peak is the peak so far. 409 `billing-not-configured` when the yard has no billing config.',
    access: BILLING,
    body: SummaryGenerateIn,
    response: { schema: SummaryListOut },
    errors: [404, 409],
    handler: ({ principal, body }, { summaries }) => summaries.generate(principal, body),
  });

  r.add({
    method: 'post',
    path: '/api/billing/summary/generate-past',
    tag: TAG,
    summary: 'Generate billing summary information for a past period (`period=YYYY-MM`)',
    description: '400 `period-not-past` when the period has not ended in a named yard’s time zone.',
    access: BILLING,
    body: SummaryGeneratePastIn,
    response: { schema: SummaryListOut },
    errors: [404, 409],
    handler: ({ principal, body }, { summaries }) => summaries.generatePast(principal, body),
  });

  r.add({
    method: 'get',
    path: '/api/billing/summary',
    tag: TAG,
    summary:
      'Billing summary aggregated for a list of yards and carriers (`yardIds`, `carrierIds`, `period`)',
    description: 'The stored summaries of the period (generate them first), and their sums per currency.',
    access: BILLING,
    query: SummaryAggregateQuery,
    response: { schema: SummaryAggregateOut },
    handler: ({ principal, query }, { summaries }) => summaries.aggregate(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/billing/summary/to-be-completed',
    tag: TAG,
    summary: '"To Be Completed": past periods with billable activity and no invoice yet',
    description:
      'For the last `months` past periods of each yard with a billing config (periods that ended before the config was created are not owed): the carriers an invoice would charge something (any line not 0) that have no draft or issued invoice.',
    access: BILLING,
    query: ToBeCompletedQuery,
    response: { schema: ToBeCompletedOut },
    errors: [404, 409],
    handler: ({ principal, query }, { summaries }) => summaries.toBeCompleted(principal, query),
  });
}
