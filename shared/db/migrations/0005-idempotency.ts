/**
 * Idempotency-Key answers (shared/http/idempotency.ts). Local to the node that answered: a phone
 * replays to the edge it talks to, so these rows never sync (no change_log, no hlc).
 * - principal, method, route, key: the scope of a key (a key is the caller's, per operation).
 * - fingerprint: SHA-256 of the request (path parameters, query, body), to refuse a key reused
 *   for another request.
 * - state 'in-flight' while the first request runs (owner: the process run that runs it), 'done'
 *   with the stored answer (status, content type, body) after.
 * - expires_at: the key is forgotten (pruned, or replaced by a new request) from then on.
 */
export const up = `
CREATE TABLE idempotency_key (
  principal TEXT NOT NULL,
  method TEXT NOT NULL,
  route TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in-flight', 'done')),
  owner TEXT NOT NULL,
  started_at bigint NOT NULL,
  status INTEGER,
  content_type TEXT,
  body TEXT,
  expires_at bigint NOT NULL,
  PRIMARY KEY (principal, method, route, key)
);
CREATE INDEX idempotency_key_expires ON idempotency_key (expires_at);
`;
