import type { ProblemError } from '../../common/api/problem';

/** A refused check-in's words above the form: what happened and what the clerk does next. */
export function problemText(err: ProblemError): string {
  if (err.code === 'network-error') return `${err.message} Nothing was recorded; the form is kept.`;
  if (err.code === 'driver-not-allowed')
    return `${err.message.split('. Send override')[0]}. Give a reason to admit anyway.`;
  if (err.code === 'edge-owned')
    return 'Check-ins are recorded at the yard itself: use the gate-house screen of the site.';
  if (err.code === 'invalid-transition')
    return `${err.message} Clear the appointment code to check the truck in without it.`;
  return err.message;
}

/** The lines above the form: with field errors on their fields, only what fits none of them. */
export function problemLines(err: ProblemError, placedCount: number, unplaced: string[]): string[] {
  const lines = placedCount > 0 && unplaced.length === 0 ? [] : [problemText(err), ...unplaced];
  if (placedCount > 0)
    lines.unshift(
      `Nothing was recorded: correct the marked field${placedCount === 1 ? '' : 's'}, then check in again.`,
    );
  return lines;
}
