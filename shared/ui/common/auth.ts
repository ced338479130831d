import { computed, signal } from '@preact/signals';
import type { components } from './api/schema';

export type Principal = components['schemas']['Principal'];
export type Role = Principal['role'];

interface StoredSession {
  token: string;
  /** What was typed to log in, offered again when the session ends. */
  username?: string;
  expiresAt: string;
  principal: Principal;
}

const KEY = 'yard.session';

function load(): StoredSession | null {
  try {
    const raw = localStorage.getItem(KEY);
    const s = raw ? (JSON.parse(raw) as StoredSession) : null;
    return s && Date.parse(s.expiresAt) > Date.now() ? s : null;
  } catch {
    return null;
  }
}

const current = signal<StoredSession | null>(load());
/** Set when the server refused the token (expired, revoked): the login dialog opens over the screen. */
const expired = signal(false);

/**
 * The signed-in user. Kept in localStorage so a reload keeps the shift going until the token
 * expires; a 401 (token expired or revoked) sets `expired`, and the app shows the login dialog
 * over the current screen, whose state therefore survives the new login.
 */
export const session = {
  principal: computed(() => current.value?.principal ?? null),
  expired,
  token: () => current.value?.token,
  username: () => current.value?.username,
  signIn(s: StoredSession) {
    current.value = s;
    expired.value = false;
    localStorage.setItem(KEY, JSON.stringify(s));
  },
  /** The server refused the token: ask for a new login, keep the screen. */
  expire() {
    if (current.value) expired.value = true;
  },
  signOut() {
    current.value = null;
    expired.value = false;
    localStorage.removeItem(KEY);
  },
};

/** Roles that may record gate movements and open gates (API.md: A G). */
export function canWorkGate(role: Role | undefined): boolean {
  return role === 'admin' || role === 'gate';
}

/** Roles that may create yard tasks (API.md: A D G). */
export function canCreateTasks(role: Role | undefined): boolean {
  return role === 'admin' || role === 'dispatcher' || role === 'gate';
}
