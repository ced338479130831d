import { IdParams, page } from '../../../http/common-schemas.js';
import type { BillingRoutes } from '../place.js';
import {
  GenerateAllOut,
  InvoiceCreateIn,
  InvoiceGenerateAllIn,
  InvoiceKeyParams,
  InvoiceListQuery,
  InvoiceOut,
  InvoiceReplaceIn,
  InvoiceSummaryOut,
  InvoiceVoidIn,
  OverageOut,
  OverageQuery,
} from './schema.js';

const TAG = 'Billing';
const BILLING = ['admin', 'billing'] as const;

export function registerInvoiceRoutes(r: BillingRoutes): void {
  r.add({
    method: 'get',
    path: '/api/billing/invoice',
    tag: TAG,
    summary: 'Get Invoices (`yardId`, `carrierId`, `period`)',
    description: 'Whole invoices (lines, per-day table, annex), in creation order; also `status`.',
    access: BILLING,
    query: InvoiceListQuery,
    response: { schema: page(InvoiceOut) },
    handler: ({ principal, query }, { invoices }) => invoices.list(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/billing/invoice/summaries',
    tag: TAG,
    summary: 'Get Invoice Summaries (totals without lines, per yard / carrier / period)',
    access: BILLING,
    query: InvoiceListQuery,
    response: { schema: page(InvoiceSummaryOut) },
    handler: ({ principal, query }, { invoices }) => invoices.summaries(principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/billing/invoice/overage',
    tag: TAG,
    summary: 'Get detailed overage info (`yardId`, `carrierId`, `period`): the per-day table',
    description:
      'Each yard-local day of the period that has begun: peak trailers present at once, bookedSpaces, overage units and amount. From the period’s invoice when it has one (draft or issued), else computed now (also for the ongoing period: today is its peak so far).',
    access: BILLING,
    query: OverageQuery,
    response: { schema: OverageOut },
    errors: [404, 409],
    handler: ({ principal, query }, { overage }) => overage.overage(principal, query),
  });

  r.add({
    method: 'post',
    path: '/api/billing/invoice/generate-all',
    tag: TAG,
    summary: 'Generate all invoices for the previous period (idempotent)',
    description:
      'Drafts for the previous period (in each yard’s time zone) of every carrier charged something. Skips carriers with an invoice (draft or issued) and carriers with no charges; at the cloud, a yard whose site has not synced past the period’s end is listed under `waiting` (with why, in words) and not invoiced, unless `force: true` (generate anyway). Repeating it creates nothing new.',
    access: BILLING,
    body: InvoiceGenerateAllIn,
    response: { schema: GenerateAllOut },
    handler: ({ principal, body }, { generation }) =>
      generation.generateAll(principal, principal.id, body?.force ?? false),
  });

  r.add({
    method: 'post',
    path: '/api/billing/invoice',
    tag: TAG,
    summary: 'Generate Invoice (`yardId`, `carrierId`, `period`; 409 if it exists)',
    description:
      'A draft for a past period. 409 `invoice-exists` when the period has a draft or issued invoice; 400 `period-not-past` for the ongoing or a future period; at the cloud 409 `site-not-synced` when the yard’s site has not synced past the period’s end, unless `force: true`.',
    access: BILLING,
    body: InvoiceCreateIn,
    response: { status: 201, schema: InvoiceOut },
    errors: [404, 409],
    handler: async ({ principal, body, res }, { generation }) => {
      const invoice = await generation.generate(principal, body, principal.id);
      res.setHeader(
        'Location',
        `/api/billing/invoice/${invoice.yardId}/${invoice.carrierId}/${invoice.period}`,
      );
      return invoice;
    },
  });

  r.add({
    method: 'get',
    path: '/api/billing/invoice/{yardId}/{carrierId}/{period}',
    tag: TAG,
    summary: 'Get specific Invoice',
    description: 'The period’s invoice that is not void; when every one is void, the newest of them.',
    access: BILLING,
    params: InvoiceKeyParams,
    response: { schema: InvoiceOut },
    errors: [404],
    handler: ({ principal, params }, { invoices }) => invoices.getByKey(principal, params),
  });

  r.add({
    method: 'put',
    path: '/api/billing/invoice/{yardId}/{carrierId}/{period}',
    tag: TAG,
    summary: 'Generate/Replace Invoice',
    description:
      'Recomputes the draft (same id and number) from the activity and adjustments now, or generates a draft when the period has none. 409 `invoice-issued` for an issued invoice: void it, then generate again.',
    access: BILLING,
    params: InvoiceKeyParams,
    body: InvoiceReplaceIn,
    response: { schema: InvoiceOut },
    errors: [404, 409],
    handler: ({ principal, params, body }, { generation }) =>
      generation.replace(principal, params, body?.force, principal.id),
  });

  r.add({
    method: 'delete',
    path: '/api/billing/invoice/{yardId}/{carrierId}/{period}',
    tag: TAG,
    summary: 'Delete specific invoice',
    description:
      'Drafts only: 409 `invoice-issued` for an issued invoice, `invoice-void` for a void one (kept for the record).',
    access: BILLING,
    params: InvoiceKeyParams,
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }, { invoices }) => {
      await invoices.deleteByKey(principal, params);
    },
  });

  r.add({
    method: 'get',
    path: '/api/billing/invoice/{id}',
    tag: TAG,
    summary: 'Get an invoice by id',
    description:
      'One invoice in any status (draft, issued or void), e.g. from the id a generation answered. ' +
      'An invoice of a yard outside the caller’s scope is 404.',
    access: BILLING,
    params: IdParams,
    response: { schema: InvoiceOut },
    errors: [404],
    handler: ({ principal, params }, { invoices }) => invoices.getById(principal, params.id),
  });

  r.add({
    method: 'delete',
    path: '/api/billing/invoice/{id}',
    tag: TAG,
    summary: 'Delete invoice by id',
    description: 'Drafts only: 409 `invoice-issued` for an issued invoice, `invoice-void` for a void one.',
    access: BILLING,
    params: IdParams,
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }, { invoices }) => {
      await invoices.deleteById(principal, params.id);
    },
  });

  r.add({
    method: 'post',
    path: '/api/billing/invoice/{id}/issue',
    tag: TAG,
    summary: 'issue a draft invoice (it becomes immutable)',
    description:
      '409 `invalid-transition` unless the invoice is a draft. Webhook endpoints subscribed to `invoice.issued` are told (written with the change).',
    access: BILLING,
    params: IdParams,
    response: { schema: InvoiceOut },
    errors: [404, 409],
    handler: ({ principal, params }, { invoices }) => invoices.issue(principal, params.id),
  });

  r.add({
    method: 'post',
    path: '/api/billing/invoice/{id}/void',
    tag: TAG,
    summary: 'void an issued invoice (`reason`); the period can be invoiced again',
    description:
      '409 `invalid-transition` unless the invoice is issued (delete a draft instead). Webhook endpoints subscribed to `invoice.voided` are told (written with the change).',
    access: BILLING,
    params: IdParams,
    body: InvoiceVoidIn,
    response: { schema: InvoiceOut },
    errors: [404, 409],
    handler: ({ principal, params, body }, { invoices }) => invoices.void(principal, params.id, body.reason),
  });
}
