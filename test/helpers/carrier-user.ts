import type { Client } from './http.js';

/** The password of every carrier user made by `carrierClient`. */
export const CARRIER_PASSWORD = 'carrier-horse-battery';

export interface CarrierClientOptions {
  username?: string;
  displayName?: string;
  /** The carrier user's yard scope (null or left out: every yard). */
  yardIds?: string[] | null;
}

/** A logged-in carrier user: its client, and what it was created as (the user's id for PATCH/DELETE). */
export interface CarrierLogin extends Client {
  userId: string;
  username: string;
}

/**
 * Creates a carrier user of `carrierId` through `POST /api/user` (as `admin`) and returns a client
 * logged in as it through the normal login. Throws with the answer when either step fails.
 */
export async function carrierClient(
  admin: Client,
  carrierId: string,
  opts: CarrierClientOptions = {},
): Promise<CarrierLogin> {
  const username = opts.username ?? `carrier-${Math.random().toString(36).slice(2, 8)}`;
  const created = await admin.post('/api/user', {
    username,
    role: 'carrier',
    carrierId,
    password: CARRIER_PASSWORD,
    yardIds: opts.yardIds ?? null,
    ...(opts.displayName ? { displayName: opts.displayName } : {}),
  });
  if (created.status !== 201) throw new Error(`create carrier user: ${created.status} ${created.text}`);
  const login = await admin.as(undefined).post('/api/auth/login', { username, password: CARRIER_PASSWORD });
  if (login.status !== 200) throw new Error(`login carrier user: ${login.status} ${login.text}`);
  const client = admin.as(login.body.token) as CarrierLogin;
  client.userId = created.body.id;
  client.username = username;
  return client;
}
