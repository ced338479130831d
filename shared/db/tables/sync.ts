/** The sync engine's own tables: the change log and cursors, sites, tombstones, held rows, blob uploads and dead letters. */
import type { Generated } from 'kysely';

export interface ChangeLogTable {
  seq: Generated<number>;
  peer: string;
  entity: string;
  entityId: string;
  op: 'upsert' | 'delete';
  hlc: string;
  origin: string;
  schemaV: number;
  data: string;
}

export interface SyncCursorTable {
  peer: string;
  ackedSeq: Generated<number>;
  appliedRemoteSeq: Generated<number>;
  remoteStream: string | null;
  ackedAt: number | null;
  appliedAt: number | null;
}

export interface SiteTable {
  id: string;
  name: string;
  mqttPasswordHash: string;
  createdAt: number;
  linkState: Generated<'never' | 'online' | 'offline'>;
  linkChangedAt: number | null;
  lastSeenAt: number | null;
  reportedQueued: Generated<number>;
  reportedSchemaV: number | null;
  reportedVersion: string | null;
  clockSkewMs: Generated<number>;
  /** JSON [{gateId, state}] as the site's last status reported it; null before it reported gates. */
  reportedGates: string | null;
}

/** Per peer, kept by triggers (migration 0011): its change_log rows, those acknowledged, its dead letters. */
export interface SyncPeerCountTable {
  peer: string;
  logRows: Generated<number>;
  ackedRows: Generated<number>;
  deadLetters: Generated<number>;
}

export interface SyncMetaTable {
  name: string;
  value: string;
}

export interface SyncTombstoneTable {
  entity: string;
  entityId: string;
  hlc: string;
}

export interface SyncPendingTable {
  id: Generated<number>;
  peer: string;
  seq: number;
  schemaV: number;
  entity: string;
  entityId: string;
  op: 'upsert' | 'delete';
  hlc: string;
  data: string;
}

export interface BlobUploadTable {
  sha256: string;
  uploadedAt: number | null;
  attempts: Generated<number>;
  nextAttemptAt: Generated<number>;
  lastError: string | null;
}

export interface DeadLetterTable {
  id: Generated<number>;
  peer: string;
  seq: number;
  entity: string;
  entityId: string;
  error: string;
  data: string;
  at: number;
}
