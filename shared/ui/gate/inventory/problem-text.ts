import { ProblemError } from '../../common/api/problem';

/**
 * What to tell the clerk about a failed call. A record managed elsewhere (a linked edge answers
 * 409 cloud-owned) says where it is managed: the problem's detail names it.
 */
export function problemText(err: unknown): string {
  if (!(err instanceof ProblemError)) return 'Something went wrong. Try again.';
  if (err.code === 'cloud-owned') {
    return `${err.problem.detail ?? 'This record is managed in the cloud.'} Change it there; this site shows it read-only.`;
  }
  if (err.code === 'forbidden') return `${err.message} Ask an admin for a role that may do this.`;
  return err.message;
}
