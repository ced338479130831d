import { ProblemError } from '../../common/api/problem';
import { yard } from '../scope';

/**
 * The yard chosen in the picker, for records that belong to one yard (locations, gates, cameras).
 * With no yard at all the list says what to do instead of failing.
 */
export function chosenYardId(): string {
  const id = yard.value?.id;
  if (id) return id;
  throw new ProblemError({
    status: 0,
    code: 'no-yard',
    title: 'No yard',
    detail: 'There is no yard to show yet: create one under Master data, Yards.',
  });
}
