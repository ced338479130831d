import axios, { type AxiosResponse, isAxiosError } from 'axios';
import type { z } from 'zod';
import { type OutboundPolicy, outboundRefusal, requestGuard } from '../../net/outbound-policy.js';
import type { CameraError } from '../types.js';
import type { Deadline } from './deadline.js';
import {
  HINTS,
  httpStatusProblem,
  type SecretRedactor,
  type Step,
  stepError,
  unknownCameraError,
} from './step-errors.js';

/** Provider JSON answers are small; anything larger is not the API we expect. */
const MAX_JSON_BYTES = 5 * 1024 * 1024;

export interface JsonRequest<T> {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  /** A JSON body, or a form body (OAuth 2.0 token requests are form-encoded). */
  body?: { json: unknown } | { form: Record<string, string> };
  deadline: Deadline;
  /** The addresses the request may connect to. */
  policy: OutboundPolicy;
  step: Step;
  redactor: SecretRedactor;
  /** The shape the answer must have; anything else is a 'bad-response'. */
  schema: z.ZodType<T>;
  /** What the operator should check when the provider answers 401 or 403. */
  unauthorizedHint: string;
  /** Other answers that mean "credentials refused" for this endpoint (body parsed as JSON, or undefined). */
  isRefusal?: (status: number, body: unknown) => boolean;
  /** When set, a 404 means "no such camera" ('not-found') rather than a wrong URL. */
  notFoundMeansUnknownCamera?: boolean;
}

/**
 * One request to a provider's JSON API, with every failure turned into a CameraError that names
 * the step and says what to check. Redirects are not followed: a provider key in a custom header
 * must never be replayed to another host.
 */
export async function requestJson<T>(req: JsonRequest<T>): Promise<T> {
  const { step, redactor } = req;
  const response = await send(req);
  const { status } = response;
  if (status === 401 || status === 403 || req.isRefusal?.(status, parseOrUndefined(response.data))) {
    const detail = `the provider refused the credentials (HTTP ${status}${upstreamMessage(response)})`;
    throw stepError(step, 'unauthorized', detail, req.unauthorizedHint, redactor, status);
  }
  if (status === 404 && req.notFoundMeansUnknownCamera) {
    throw unknownCameraError(step, redactor);
  }
  if (status < 200 || status >= 300) {
    const { detail, hint } = httpStatusProblem(status, headerValue(response, 'retry-after'));
    throw stepError(step, 'bad-response', `${detail}${upstreamMessage(response)}`, hint, redactor, status);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(response.data));
  } catch {
    const type = headerValue(response, 'content-type') ?? 'no content type';
    throw stepError(
      step,
      'bad-response',
      `the answer is not JSON (${type})`,
      'Check that the URL points at the provider API, not a web page or a proxy login.',
      redactor,
      status,
    );
  }
  const checked = req.schema.safeParse(parsed);
  if (!checked.success) {
    const where = checked.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw stepError(
      step,
      'bad-response',
      `the answer does not have the expected fields (${where})`,
      'Check that the integration kind matches the provider and API version.',
      redactor,
      status,
    );
  }
  return checked.data;
}

async function send<T>(req: JsonRequest<T>): Promise<AxiosResponse<string>> {
  const { step, redactor, deadline } = req;
  const timeoutMs = deadline.remainingMs();
  if (timeoutMs <= 0) throw timeoutError(step, redactor);
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let data: string | undefined;
  if (req.body && 'json' in req.body) {
    headers['content-type'] = 'application/json';
    data = JSON.stringify(req.body.json);
  } else if (req.body) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    data = new URLSearchParams(req.body.form).toString();
  }
  try {
    const { lookup } = requestGuard(req.url, req.policy);
    return await axios.request<string>({
      method: req.method,
      url: req.url,
      lookup,
      headers,
      data,
      signal: abort.signal,
      maxRedirects: 0,
      maxContentLength: MAX_JSON_BYTES,
      responseType: 'text',
      // Parse ourselves, so a non-JSON answer is reported as such instead of passed on as a string.
      transformResponse: [(body: string) => body],
      validateStatus: () => true,
    });
  } catch (e) {
    if (timedOut) throw timeoutError(step, redactor);
    throw transportError(e, step, redactor);
  } finally {
    clearTimeout(timer);
  }
}

export function timeoutError(step: Step, redactor: SecretRedactor): CameraError {
  return stepError(step, 'timeout', 'no complete answer within the timeout', HINTS.timeout, redactor);
}

/** Connection-level failures: nothing (or nothing usable) answered. */
function transportError(e: unknown, step: Step, redactor: SecretRedactor): CameraError {
  const refused = outboundRefusal(e);
  if (refused) return stepError(step, 'address-refused', refused.message, '', redactor);
  const cause = isAxiosError(e) ? (e.cause as { code?: unknown } | undefined) : undefined;
  const code = isAxiosError(e)
    ? (e.code ?? (typeof cause?.code === 'string' ? cause.code : undefined))
    : undefined;
  if (code === 'ERR_BAD_RESPONSE') {
    return stepError(
      step,
      'bad-response',
      `the answer was larger than ${MAX_JSON_BYTES} bytes or malformed`,
      'Check that the URL points at the provider API.',
      redactor,
    );
  }
  if (code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return stepError(
      step,
      'unreachable',
      `the TLS certificate was not accepted (${code})`,
      'Check the host name in the URL and that no proxy intercepts TLS.',
      redactor,
    );
  }
  const detail = code ? `could not connect (${code})` : 'could not connect';
  return stepError(step, 'unreachable', detail, HINTS.unreachable, redactor);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return undefined;
  }
}

function headerValue(response: AxiosResponse, name: string): string | undefined {
  const v: unknown = response.headers[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * The provider's own short explanation from a JSON error body ("Token expired", "invalid_client"),
 * which often tells the operator more than the status. Redacted by stepError like the rest.
 */
function upstreamMessage(response: AxiosResponse<string>): string {
  // Not JSON: say nothing rather than echo an HTML page.
  const body = parseOrUndefined(response.data);
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const text = [b.message, b.error_description, b.error, b.detail].find((v) => typeof v === 'string');
    if (typeof text === 'string' && text.trim()) return `: ${text.trim().slice(0, 160)}`;
  }
  return '';
}
