/**
 * Answer body that is already JSON (e.g. rendered by SQLite, or written as bytes by a hot route):
 * the route layer sends it as-is. A Buffer holds UTF-8.
 */
export class RawJson {
  constructor(readonly text: string | Buffer) {}
}
