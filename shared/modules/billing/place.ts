import { ConflictError } from '../../http/errors.js';
import type { ChangeCapture } from '../../sync/change-capture.js';

/**
 * Billing lives where every site's movements meet and the master data is written: the cloud, or a
 * standalone edge (docs/domain.md "Billing"). A linked edge writes no yard (yards are the cloud's),
 * and that is how it is recognised; it answers billing routes with 409 `cloud-owned`.
 */
export function assertBillingHere(changes: Pick<ChangeCapture, 'mayWrite'>): void {
  if (changes.mayWrite('yard')) return;
  throw new ConflictError(
    'cloud-owned',
    'Billing is done at the cloud for a site linked to it. Use the cloud’s billing routes or its dashboard.',
  );
}
