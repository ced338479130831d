/**
 * The webhook event types (docs/webhooks.md "Events"), as receivers subscribe to them. The
 * appointment ones follow its history (appointment_event), movement.created a gate check-in or
 * check-out; the invoice ones are listed for the contract (docs/domain.md "Carriers and
 * integrators").
 */
export const WEBHOOK_EVENT_TYPES = [
  'appointment.created',
  'appointment.changed',
  'appointment.cancelled',
  'appointment.arrived',
  'appointment.docked',
  'appointment.completed',
  'appointment.no_show',
  'movement.created',
  'invoice.issued',
  'invoice.voided',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
