import type { OutboundPolicy } from '../../net/outbound-policy.js';
import type { CameraProvider, ProviderCamera, Snapshot } from '../types.js';
import { Deadline } from './deadline.js';
import { type JsonRequest, requestJson, timeoutError } from './json-client.js';
import { SecretRedactor, type Step } from './step-errors.js';
import { type IssuedToken, TokenCache, withToken } from './token-cache.js';

/** A guard against a provider that keeps handing out next-page tokens or cursors. */
const MAX_PAGES = 100;

/** One page of a camera listing, and the token of the next page (none: this was the last). */
export interface CameraPage {
  cameras: ProviderCamera[];
  next: string | undefined;
}

/** A JSON request sent with the connection's token; the connection adds policy, redactor and auth. */
export type TokenRequest<T> = Omit<JsonRequest<T>, 'policy' | 'redactor' | 'headers' | 'deadline'>;

/**
 * What every cloud provider behind a short-lived token shares: its API root, the redactor that keeps
 * its secrets (and every token it was issued) out of messages, one token cache per connection, data
 * requests sent with that token, and a paged camera listing that stops at the last page or at a
 * provider that repeats itself. A provider says how it gets a token, how it sends it and how it pages.
 */
export abstract class TokenApiProvider implements CameraProvider {
  protected readonly base: string;
  protected readonly redactor: SecretRedactor;
  private readonly tokens: TokenCache;

  constructor(
    private readonly kind: string,
    baseUrl: string,
    secrets: string[],
    protected readonly now: () => number,
    protected readonly policy: OutboundPolicy,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
    this.redactor = new SecretRedactor(secrets);
    this.tokens = new TokenCache(
      (deadline) => this.issueToken(deadline, this.tokenStep()),
      now,
      () => timeoutError(this.tokenStep(), this.redactor),
    );
  }

  abstract snapshot(providerCameraId: string, opts: { timeoutMs: number }): Promise<Snapshot>;

  async listCameras(opts: { timeoutMs: number }): Promise<ProviderCamera[]> {
    const deadline = Deadline.after(opts.timeoutMs);
    const cameras: ProviderCamera[] = [];
    const seen = new Set<string>();
    let next: string | undefined;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.listPage(next, page, deadline);
      cameras.push(...answer.cameras);
      next = answer.next;
      if (!next || seen.has(next)) return cameras; // a repeated token is a provider bug; what we have is complete
      seen.add(next);
    }
    return cameras;
  }

  /** The step that gets a token, for its messages. */
  protected abstract tokenStep(): Step;
  /** Asks the provider for a new token. */
  protected abstract issueToken(deadline: Deadline, step: Step): Promise<IssuedToken>;
  /** The headers that carry the token on a data request. */
  protected abstract authHeaders(token: string): Record<string, string>;
  /** One page of the camera listing; `cursor` is undefined for the first. */
  protected abstract listPage(
    cursor: string | undefined,
    page: number,
    deadline: Deadline,
  ): Promise<CameraPage>;

  /** Runs `call` with the token's headers, refreshing the token once on a 401 (see withToken). */
  protected withAuth<T>(
    deadline: Deadline,
    call: (headers: Record<string, string>) => Promise<T>,
  ): Promise<T> {
    return withToken(this.tokens, deadline, (token) => call(this.authHeaders(token)));
  }

  /** A JSON data request sent with the token. */
  protected requestWithToken<T>(deadline: Deadline, req: TokenRequest<T>): Promise<T> {
    return this.withAuth(deadline, (headers) =>
      requestJson({ ...req, policy: this.policy, redactor: this.redactor, headers, deadline }),
    );
  }

  protected step(action: string): Step {
    return { kind: this.kind, action };
  }
}
