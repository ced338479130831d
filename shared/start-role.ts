import type { Server } from 'node:http';
import { type AppDeps, createApp, type YardApp } from './app.js';
import { NodeOnvifClient } from './cameras/onvif-client.js';
import { CAMERA_PROVIDER_KINDS } from './cameras/providers/index.js';
import type { Config } from './config.js';
import type { AppDatabase } from './db/database.js';
import { openAppDatabase } from './db/open-app-database.js';
import { ReadPool } from './db/read-pool.js';
import type { GateHardware } from './hardware.js';
import { type Component, Lifecycle, StartError } from './lifecycle.js';
import type { Logger } from './log.js';
import { certificateValidityProblem, readTlsCredentials } from './net/tls-server.js';
import { closeHttp, type HttpListeners, listenHttp } from './process.js';
import { type RoleProfile, roleProfile } from './role-profile.js';
import { warnPlaintextLinks } from './tls-warnings.js';

/**
 * What makes a process an edge or the cloud, chosen once at start (edge/main.ts, cloud/main.ts)
 * from the opened database: everything after that is the same sequence for both.
 */
export interface RoleParts {
  /**
   * Started after the database opens and before the app, stopped after the app: the edge's relays
   * (their stop drives every relay safe), the cloud's embedded broker.
   */
  components: Component[];
  /** The edge's relay drivers; the cloud's NoRelays. */
  gates: GateHardware;
  /** The sync link's parts once the core exists; none for a standalone edge. */
  sync?: AppDeps['sync'];
}

export interface RunningRole {
  yard: YardApp;
  db: AppDatabase;
  server: Server;
  url: string;
  /** The plain-HTTP port that redirects to HTTPS (tls.httpRedirectPort), when there is one. */
  redirectUrl?: string | undefined;
  log: Logger;
  /** The first admin's generated password, when this start created it (shown once). */
  generatedAdmin?: { username: string; password: string } | undefined;
  /**
   * With HTTPS: rereads the certificate and key files and serves them from the next connection on
   * (SIGHUP, shared/process.ts). Files that cannot be used are logged and the current ones kept.
   */
  reloadCertificate?: (() => void) | undefined;
  stop(): Promise<void>;
}

/**
 * The one start sequence: database (migrated), the read pool's workers, the role's own components,
 * the app (services, background work, sync link), the HTTP API. Stops in reverse: the server drains,
 * the app's background work and sync stop, the role's components stop (relays safe, broker closed),
 * the read workers end, SQLite closes. A part that fails to start stops those already started before the error propagates.
 */
export async function startRole(
  config: Config,
  log: Logger,
  role: (db: AppDatabase, profile: RoleProfile) => RoleParts,
): Promise<RunningRole> {
  // What differs by role, once for the process: the read workers, the role's parts, the app's plugs.
  const profile = roleProfile(config);
  warnPlaintextLinks(config, log);
  // Before anything opens: a certificate that cannot be used is a configuration error.
  const tls = readTlsCredentials(config);
  const invalid = tls && certificateValidityProblem(tls.leaf);
  if (invalid) log.warn({ certFile: config.tls.certFile }, invalid);
  const sequence = new Lifecycle();
  let db: AppDatabase | undefined;
  await sequence.startNext({
    name: 'database',
    start: async () => {
      db = await openAppDatabase(config, log);
      if (db.dialect === 'postgres') log.info({ database: db.where }, 'on PostgreSQL');
    },
    stop: async () => {
      await db?.close();
    },
  });
  // The heavy reads' worker threads: started once the file exists and is migrated, ended after the
  // app (no request is left to read) and before SQLite closes.
  const reads = new ReadPool({ db: db!, size: profile.readWorkers });
  await sequence.startNext(reads);
  let parts: RoleParts;
  try {
    parts = role(db!, profile);
  } catch (err) {
    await sequence.stop().catch(() => {});
    throw new StartError('role', err);
  }
  await sequence.start(parts.components);

  let yard: YardApp | undefined;
  let generatedAdmin: RunningRole['generatedAdmin'];
  let http: HttpListeners | undefined;
  await sequence.start([
    {
      name: 'app',
      start: async () => {
        // The cloud reaches provider cameras itself; ONVIF cameras only through their edge (down/cmd).
        const cameras = { onvif: new NodeOnvifClient(), providers: CAMERA_PROVIDER_KINDS };
        yard = createApp({
          db: db!,
          reads,
          config,
          profile,
          gates: parts.gates,
          cameras,
          log,
          sync: parts.sync,
        });
        const admin = await yard.services.auth.ensureAdmin();
        if (admin.awaitingSync) {
          log.warn(
            'no users yet: this edge is linked to a cloud, which owns the users; logins work once the first sync has brought them',
          );
        }
        if (admin.generatedPassword)
          generatedAdmin = { username: admin.username!, password: admin.generatedPassword };
        await yard.start();
      },
      stop: async () => yard?.stop(),
    },
    {
      name: 'http',
      start: async () => {
        http = await listenHttp(yard!.app, config, tls);
      },
      stop: async () => {
        if (http) await closeHttp(http);
      },
    },
  ]);

  const reloadCertificate = () => {
    try {
      const next = readTlsCredentials(config);
      if (!next || !http?.reloadTls) return;
      http.reloadTls(next);
      log.info({ certFile: config.tls.certFile, validTo: next.leaf.validTo }, 'HTTPS certificate reloaded');
      const problem = certificateValidityProblem(next.leaf);
      if (problem) log.warn({ certFile: config.tls.certFile }, problem);
    } catch (err) {
      log.error({ err }, 'HTTPS certificate not reloaded: the files cannot be used, the current one stays');
    }
  };

  let stopping: Promise<void> | undefined;
  return {
    yard: yard!,
    db: db!,
    server: http!.server,
    url: http!.url,
    redirectUrl: http!.redirect?.url,
    log,
    generatedAdmin,
    reloadCertificate: tls ? reloadCertificate : undefined,
    stop: () => {
      stopping ??= (async () => {
        log.info('shutting down');
        await sequence.stop();
        log.info('stopped');
      })();
      return stopping;
    },
  };
}
