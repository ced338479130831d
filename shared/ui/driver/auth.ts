import { api, call } from '../common/api/client';
import { session } from '../common/auth';

/** Logs a driver in with the code on the badge (any case) and the PIN. */
export async function driverLogIn(code: string, pin: string): Promise<void> {
  const driverCode = code.trim().toUpperCase();
  const answer = await call(api.POST('/api/auth/driver-login', { body: { driverCode, pin } }));
  session.signIn({ ...answer, username: driverCode });
}
