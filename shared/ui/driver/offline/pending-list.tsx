import { conflicts, pending } from './outbox';

/**
 * Actions waiting for the link (shown as pending) and actions the server refused (conflicts), for
 * the shift screen. FOUNDATION STUB: the offline helper builds this.
 */
export function PendingActions() {
  if (pending.value.length === 0) return null;
  return <p>{pending.value.length} waiting to be sent</p>;
}

export function Conflicts() {
  if (conflicts.value.length === 0) return null;
  return <p>{conflicts.value.length} refused</p>;
}
