/** Settings and the per-yard HTTP error figures. */
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
