/** Settings, the per-yard HTTP error figures and the Idempotency-Key answers (local, never synced). */
import type { Synced, Timestamps } from './columns.js';

export interface SettingTable extends Synced, Timestamps {
  name: string;
  value: string;
  scope: 'global' | 'site';
  updatedBy: string | null;
}

export interface HttpErrorStatTable {
  yardId: string;
  minute: number;
  status: number;
  count: number;
}

export interface IdempotencyKeyTable {
  principal: string;
  method: string;
  route: string;
  key: string;
  fingerprint: string;
  state: 'in-flight' | 'done';
  owner: string;
  startedAt: number;
  status: number | null;
  contentType: string | null;
  body: string | null;
  expiresAt: number;
}
