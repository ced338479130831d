import { z } from 'zod';
import { BATCH_LIMITS, MAX_COMMAND_LIFETIME_MS } from './sync/protocol.js';

/**
 * The whole configuration, one zod schema with its defaults and validation. Where the values come
 * from (a JSON file, YARD_* variables) is config-env.ts; loadConfig (config.ts) puts them together.
 */
export const configSchema = z.object({
  role: z.enum(['edge', 'cloud']).default('edge'),
  siteId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only')
    .default('site-1'),
  http: z
    .object({
      port: z.coerce.number().int().min(0).max(65535).default(8080),
      host: z.string().default('0.0.0.0'),
      jsonLimit: z.string().default('1mb'),
      /**
       * How many reverse proxies stand in front (0: none). The client address is the one the
       * outermost of them saw: X-Forwarded-For entries further left are the client's own claims
       * and are never trusted. true means 1 and false 0 (the former yes/no setting).
       */
      trustProxy: z
        .union([
          z.boolean().transform((trust) => (trust ? 1 : 0)),
          z.coerce
            .number({ error: 'the number of reverse proxies in front (0 = none), or true (1) / false (0)' })
            .int()
            .min(0)
            .max(16),
        ])
        .default(0),
    })
    .prefault({}),
  /**
   * HTTPS for the API and the web apps (docs/install.md "HTTPS at the edge"): the driver app's service
   * worker, push and location work only in a secure context. Without a certificate: plain HTTP.
   */
  tls: z
    .object({
      /** The server's certificate (PEM), as issued by `npm run site:add --tls-host ...`. */
      certFile: z.string().min(1).optional(),
      /** Its private key (PEM, unencrypted; keep it mode 0600). */
      keyFile: z.string().min(1).optional(),
      /** Intermediate CA certificates (PEM) sent after the server's own: the chain, when there is one. */
      caFile: z.string().min(1).optional(),
      /** A plain-HTTP port that only redirects to HTTPS (0: any free port; unset: none). */
      httpRedirectPort: z.coerce.number().int().min(0).max(65535).optional(),
    })
    .prefault({})
    .superRefine((tls, ctx) => {
      if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) {
        ctx.addIssue({
          code: 'custom',
          path: [tls.certFile ? 'keyFile' : 'certFile'],
          message: 'HTTPS needs both the certificate and its key (YARD_TLS_CERT_FILE and YARD_TLS_KEY_FILE)',
        });
      }
      if (!tls.certFile && (tls.caFile || tls.httpRedirectPort !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: [tls.caFile ? 'caFile' : 'httpRedirectPort'],
          message: 'only used with HTTPS: set YARD_TLS_CERT_FILE and YARD_TLS_KEY_FILE too',
        });
      }
    }),
  dataDir: z.string().default('./data'),
  uiDir: z.string().optional(),
  adminUser: z.string().min(1).default('admin'),
  adminPassword: z.string().min(8, 'at least 8 characters').optional(),
  log: z
    .object({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      pretty: z.boolean().optional(),
    })
    .prefault({}),
  auth: z
    .object({
      staffTokenTtlHours: z.coerce.number().positive().default(12),
      driverTokenTtlHours: z.coerce.number().positive().default(16),
      /** Failed logins per window: from one address for one account, ... */
      loginAttemptsPerWindow: z.coerce.number().int().positive().default(10),
      /** ... from one address for any accounts (both login routes), ... */
      loginAttemptsPerAddress: z.coerce.number().int().positive().default(30),
      /** ... and for one account from any addresses. */
      loginAttemptsPerAccount: z.coerce.number().int().positive().default(30),
      loginWindowSec: z.coerce.number().int().positive().default(300),
      /**
       * Failed logins a trusted device (its device cookie, login-devices.ts) may make for its account
       * before the cookie stops counting; it is not subject to the three limits above meanwhile.
       */
      loginAttemptsPerDevice: z.coerce.number().int().positive().default(10),
      /**
       * Requests of one yard driver to the driver routes per window (driver-app/request-limit.ts): a
       * phone makes a few a minute, and replays a shift's offline backlog within one window.
       */
      driverRequestsPerWindow: z.coerce.number().int().positive().default(300),
      driverRequestWindowSec: z.coerce.number().int().positive().default(60),
      /** Password and PIN hashes (scrypt, ~16 MiB each) computed at once, ... */
      hashConcurrency: z.coerce.number().int().min(1).max(64).default(2),
      /** ... and waiting; past that a login is refused at once with 503 server-busy. */
      hashQueue: z.coerce.number().int().min(0).max(10_000).default(32),
    })
    .prefault({}),
  metricsKey: z.string().min(16, 'at least 16 characters').optional(),
  /** Web Push (VAPID) for the drivers' web app; without keys no push is sent (SSE still is). */
  push: z
    .object({
      vapidPublicKey: z.string().optional(),
      vapidPrivateKey: z.string().optional(),
      subject: z.string().default('mailto:yard-admin@example.invalid'),
      /**
       * Tests and labs only: let push endpoints be on loopback and private addresses (a local fake
       * push service). Still https only. Never in production: a driver could make the edge POST into
       * its own LAN. Logged as a warning at start.
       */
      allowLocalEndpoints: z.boolean().default(false),
    })
    .prefault({}),
  /** Email to carriers over SMTP (docs/configuration.md "Email to carriers"); the server itself is set at /api/settings/email. */
  email: z
    .object({
      /**
       * Tests and labs only: let the SMTP server be on loopback or link-local addresses (private
       * addresses, where mail relays usually sit, are always allowed). Never in production: an admin
       * could make the service talk SMTP to the box itself or a cloud metadata address.
       */
      allowLocalSmtp: z.boolean().default(false),
      /** One SMTP conversation (connect, greeting, sending) gives up after this. */
      timeoutMs: z.coerce.number().int().min(1_000).max(120_000).default(15_000),
    })
    .prefault({}),
  /** Signed webhooks (docs/webhooks.md): where their delivery may go and how it is paced. */
  webhooks: z
    .object({
      /**
       * Tests and labs only: let webhook endpoints be on loopback and private addresses (a receiver
       * on the same machine). Still https only. Never in production: an admin's URL could make the
       * cloud POST into its own network.
       */
      allowLocalEndpoints: z.boolean().default(false),
      /** A PEM file of extra CAs trusted for webhook endpoints (a lab's own CA), beside the public ones. */
      caFile: z.string().optional(),
      /** How long one attempt may take, answer included. */
      timeoutMs: z.coerce.number().int().min(1000).max(60_000).default(10_000),
      /** Deliveries in flight at once (at most one per endpoint and resource). */
      concurrency: z.coerce.number().int().min(1).max(64).default(8),
      /** Delivered and failed deliveries, with their events and attempts, are kept this long. */
      retentionDays: z.coerce.number().int().min(1).max(3650).default(30),
    })
    .prefault({}),
  /**
   * MQTT link (docs/sync.md). An edge with a url is linked to a cloud; without one it is standalone and
   * owns everything. A cloud with a url uses that broker (Mosquitto in production); without one it
   * starts an embedded broker (Aedes) on `port`.
   */
  mqtt: z
    .object({
      url: z
        .string()
        .regex(/^(mqtts?|tcp|tls):\/\//, 'mqtt://host:port or mqtts://host:port')
        .optional(),
      /** Defaults: the site id at an edge, "cloud" at the cloud. */
      username: z.string().min(1).optional(),
      password: z.string().min(1).optional(),
      caFile: z.string().optional(),
      certFile: z.string().optional(),
      keyFile: z.string().optional(),
      rejectUnauthorized: z.boolean().default(true),
      /** Embedded broker (cloud without url): where it listens. */
      port: z.coerce.number().int().min(0).max(65535).default(1883),
      host: z.string().default('0.0.0.0'),
      keepaliveSec: z.coerce.number().int().min(5).max(600).default(30),
    })
    .prefault({}),
  /** The cloud's HTTP base URL, for an edge's attachment uploads and downloads. */
  cloudUrl: z.string().url().optional(),
  sync: z
    .object({
      batchRows: z.coerce.number().int().min(1).max(BATCH_LIMITS.rows).default(BATCH_LIMITS.rows),
      batchBytes: z.coerce.number().int().min(1024).max(BATCH_LIMITS.bytes).default(BATCH_LIMITS.bytes),
      /**
       * How change batches travel when the peer accepts it (shared/sync/wire-encoding.ts): deflate
       * (about 12 times smaller than JSON) or none (plain JSON, e.g. to read the traffic).
       */
      compression: z.enum(['deflate', 'none']).default('deflate'),
      /** Batches in flight before waiting for an ack. */
      window: z.coerce.number().int().min(1).max(64).default(8),
      /** Resend from the last ack when no ack came within this time. */
      ackTimeoutMs: z.coerce.number().int().positive().default(10_000),
      /** Cloud -> edge commands (gate actuation, snapshots): no answer within this is 504 site-offline. */
      commandTimeoutMs: z.coerce.number().int().positive().max(MAX_COMMAND_LIFETIME_MS).default(10_000),
      /** Acknowledged change-log rows older than this are pruned. */
      retentionDays: z.coerce.number().positive().default(30),
      /** A received change stamped further ahead of our clock than this is refused (docs/sync.md "Clock bounds"). */
      maxClockAheadMs: z.coerce.number().int().min(1_000).default(300_000),
    })
    .prefault({}),
  /**
   * Worker threads for the heavy reads (dashboard figures, task summaries: shared/db/read-pool.ts),
   * each with its own read-only connection; 0 runs them on the main thread. Default by role
   * (defaultReadWorkers): 1 at an edge, one per core beyond the first (1 to 4) at the cloud.
   */
  readWorkers: z.coerce.number().int().min(0).max(16).optional(),
  /**
   * The cloud's database (docs/cloud.md "The cloud in production: PostgreSQL and several nodes"). Without `url`: SQLite in the
   * data directory (the edge always, the cloud by default). With a postgres:// URL the cloud runs
   * on PostgreSQL; TLS is set in the URL the way libpq reads it (`sslmode=verify-full`,
   * `sslrootcert=/path/ca.pem`, `sslcert`, `sslkey`), parsed by pg-connection-string.
   */
  database: z
    .object({
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL (or unset for SQLite)')
        .optional(),
      /** Connections this node keeps open (all nodes together stay under PostgreSQL's max_connections). */
      poolMax: z.coerce.number().int().min(2).max(200).default(20),
      /** A statement running longer is cancelled by the server (0: no limit). */
      statementTimeoutMs: z.coerce.number().int().min(0).default(30_000),
    })
    .prefault({}),
  /** Check every response body against its schema (tests turn this on). */
  validateResponses: z.boolean().default(false),
});

export type Config = Readonly<z.infer<typeof configSchema>>;
