import { IdParams, page } from '../../../http/common-schemas.js';
import { ADJUSTMENTS_PER_PERIOD_MAX } from '../bounds.js';
import type { BillingRoutes } from '../place.js';
import { AdjustmentCreate, AdjustmentListQuery, AdjustmentOut, AdjustmentPatch } from './schema.js';

const TAG = 'Billing';
const BILLING = ['admin', 'billing'] as const;

export function registerAdjustmentRoutes(r: BillingRoutes): void {
  r.add({
    method: 'get',
    path: '/api/billing/invoice-adjustment',
    tag: TAG,
    summary: 'Retrieves all invoice adjustments matching `yardId`, `carrierId`, `period`',
    access: BILLING,
    query: AdjustmentListQuery,
    response: { schema: page(AdjustmentOut) },
    handler: ({ principal, query }, { adjustments }) => adjustments.list(principal, query),
  });

  r.add({
    method: 'post',
    path: '/api/billing/invoice-adjustment',
    tag: TAG,
    summary: 'Creates a new invoice adjustment for the given yard and carrier',
    description:
      '409 `period-invoiced` when the period has an issued invoice. A draft of the period takes the adjustment in when it is replaced (PUT). ' +
      `400 \`too-many-adjustments\` when the yard, carrier and period have ${ADJUSTMENTS_PER_PERIOD_MAX} already (the bounds that keep every invoice exact).`,
    access: BILLING,
    body: AdjustmentCreate,
    response: { status: 201, schema: AdjustmentOut },
    errors: [404, 409],
    handler: ({ principal, body }, { adjustments }) => adjustments.create(principal, body),
  });

  r.add({
    method: 'patch',
    path: '/api/billing/invoice-adjustment/{id}',
    tag: TAG,
    summary: 'Updates an existing invoice adjustment',
    description: '409 `period-invoiced` when its period has an issued invoice.',
    access: BILLING,
    params: IdParams,
    body: AdjustmentPatch,
    response: { schema: AdjustmentOut },
    errors: [404, 409],
    handler: ({ principal, params, body }, { adjustments }) => adjustments.update(principal, params.id, body),
  });

  r.add({
    method: 'delete',
    path: '/api/billing/invoice-adjustment/{id}',
    tag: TAG,
    summary: 'Deletes an existing invoice adjustment',
    description: '409 `period-invoiced` when its period has an issued invoice.',
    access: BILLING,
    params: IdParams,
    response: { status: 204 },
    errors: [404, 409],
    handler: async ({ principal, params }, { adjustments }) => {
      await adjustments.delete(principal, params.id);
    },
  });
}
