/**
 * The security headers of every HTML page the service serves: the web apps (ui-assets/send.ts)
 * and the API docs at /docs (platform/routes.ts). The pages load only their own scripts and
 * styles (no inline code): nothing from elsewhere, no framing (clickjacking at the gate), no
 * plugins. docs/api.md "Web apps" lists them.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};
