/**
 * Automatic drafts (shared/modules/billing/schedule.ts): one row per yard and period the timer has
 * claimed. The primary key is the claim: a node inserts (or retakes a stale or waiting claim) in one
 * statement, so two cloud nodes on one database never both run a yard's period. `done` stays 0 while
 * the yard waits for its site, so a later tick retries it. Local to the node, never synced.
 */
export const up = `
CREATE TABLE billing_auto_run (
  yard_id TEXT NOT NULL,
  period TEXT NOT NULL,
  owner TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  done INTEGER NOT NULL DEFAULT 0,
  result TEXT,
  PRIMARY KEY (yard_id, period)
) WITHOUT ROWID;
`;
