import { api, call } from './api/client';
import { session } from './auth';

/** Logs a staff user in: the session holds the token from now on. */
export async function logIn(username: string, password: string): Promise<void> {
  const answer = await call(api.POST('/api/auth/login', { body: { username, password } }));
  session.signIn({ ...answer, username });
}

/** Ends the token at the server (best effort: the page forgets it anyway). */
export async function logOut(): Promise<void> {
  await api.POST('/api/auth/logout').catch(() => undefined);
}
