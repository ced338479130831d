import type { Principal } from '../../auth/principal.js';

interface LiveSession {
  principal: Principal;
  end: (reason: string) => void;
}

/**
 * Answers that stay open (the /api/events stream) with the principal they were opened as. A
 * credential checked once at the start would otherwise outlive its revocation: AuthService ends
 * the matching sessions whenever it revokes a token or key or changes what a principal may see.
 */
export class LiveSessions {
  private readonly open = new Set<LiveSession>();

  /** Registers an open answer; the returned function unregisters it (call it when it closes). */
  add(principal: Principal, end: (reason: string) => void): () => void {
    const session = { principal, end };
    this.open.add(session);
    return () => {
      this.open.delete(session);
    };
  }

  /** Ends every open session whose principal matches. */
  end(match: (principal: Principal) => boolean, reason: string): void {
    for (const session of [...this.open]) {
      if (!match(session.principal)) continue;
      this.open.delete(session);
      session.end(reason);
    }
  }

  /** Ends the sessions (of those `which` selects) whose principal `isCurrent` no longer accepts. */
  async recheck(
    isCurrent: (principal: Principal) => Promise<boolean>,
    which: (principal: Principal) => boolean,
  ): Promise<void> {
    for (const session of [...this.open]) {
      if (!which(session.principal) || (await isCurrent(session.principal))) continue;
      if (this.open.delete(session)) session.end('credential-revoked');
    }
  }

  get size(): number {
    return this.open.size;
  }
}
