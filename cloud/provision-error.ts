/** A refusal the operator can act on: what is wrong, and what to do about it. */
export class ProvisionError extends Error {
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem}\n${fix}`);
    this.name = 'ProvisionError';
  }
}
