import type { SyncMode } from '../role-profile.js';
import type { CommandKind } from './protocol.js';

/** A long-lived sync component (change streams, command channel, attachment uploader). */
export interface SyncComponent {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The change-stream side of sync: what /api/sync/status and /readyz report. */
export interface SyncRuntime extends SyncComponent {
  /** The body of GET /api/sync/status (SyncStatusOut). */
  status(): Promise<unknown>;
  /** Rows queued for the peer(s), for /readyz. */
  queued(): Promise<number>;
}

/** Cloud only: runs a command at the edge that owns a gate or camera (docs/sync.md "Commands"). */
export interface RemoteCommands {
  /**
   * Resolves with the edge's result. Rejects with an AppError: 504 site-offline when no answer
   * came within sync.commandTimeoutMs (the edge will not run it later), or the edge's own error.
   */
  send(siteId: string, kind: CommandKind, args: Record<string, unknown>): Promise<unknown>;
}

/** What createApp's `sync` factory returns: every part optional (a standalone edge has none). */
export interface SyncParts {
  runtime?: SyncRuntime;
  commands?: RemoteCommands;
  /** Other components started after the runtime and stopped before it. */
  components?: SyncComponent[];
}

/** core.sync: the mode and, when linked or cloud, the parts. */
export interface SyncFacade extends SyncParts {
  mode: SyncMode;
}
