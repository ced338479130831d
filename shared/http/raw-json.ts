/** Answer body that is already JSON text (e.g. rendered by SQLite): the route layer sends it as-is. */
export class RawJson {
  constructor(readonly text: string) {}
}
