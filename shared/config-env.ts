import { readFileSync } from 'node:fs';

/** Environment variable -> config path. Only these are read. */
export const ENV_MAP: Record<string, string> = {
  YARD_ROLE: 'role',
  YARD_SITE_ID: 'siteId',
  YARD_HTTP_PORT: 'http.port',
  YARD_HTTP_HOST: 'http.host',
  YARD_HTTP_JSON_LIMIT: 'http.jsonLimit',
  YARD_TRUST_PROXY: 'http.trustProxy',
  YARD_TLS_CERT_FILE: 'tls.certFile',
  YARD_TLS_KEY_FILE: 'tls.keyFile',
  YARD_TLS_CA_FILE: 'tls.caFile',
  YARD_HTTP_REDIRECT_PORT: 'tls.httpRedirectPort',
  YARD_DATA_DIR: 'dataDir',
  YARD_UI_DIR: 'uiDir',
  YARD_ADMIN_USER: 'adminUser',
  YARD_ADMIN_PASSWORD: 'adminPassword',
  YARD_LOG_LEVEL: 'log.level',
  YARD_LOG_PRETTY: 'log.pretty',
  YARD_STAFF_TOKEN_TTL_HOURS: 'auth.staffTokenTtlHours',
  YARD_DRIVER_TOKEN_TTL_HOURS: 'auth.driverTokenTtlHours',
  YARD_LOGIN_ATTEMPTS: 'auth.loginAttemptsPerWindow',
  YARD_LOGIN_WINDOW_SEC: 'auth.loginWindowSec',
  YARD_LOGIN_ATTEMPTS_PER_ADDRESS: 'auth.loginAttemptsPerAddress',
  YARD_LOGIN_ATTEMPTS_PER_ACCOUNT: 'auth.loginAttemptsPerAccount',
  YARD_LOGIN_ATTEMPTS_PER_DEVICE: 'auth.loginAttemptsPerDevice',
  YARD_DRIVER_REQUESTS: 'auth.driverRequestsPerWindow',
  YARD_DRIVER_REQUEST_WINDOW_SEC: 'auth.driverRequestWindowSec',
  YARD_HASH_CONCURRENCY: 'auth.hashConcurrency',
  YARD_HASH_QUEUE: 'auth.hashQueue',
  YARD_METRICS_KEY: 'metricsKey',
  YARD_VAPID_PUBLIC_KEY: 'push.vapidPublicKey',
  YARD_VAPID_PRIVATE_KEY: 'push.vapidPrivateKey',
  YARD_VAPID_SUBJECT: 'push.subject',
  YARD_PUSH_ALLOW_LOCAL_ENDPOINTS: 'push.allowLocalEndpoints',
  YARD_EMAIL_ALLOW_LOCAL_SMTP: 'email.allowLocalSmtp',
  YARD_EMAIL_TIMEOUT_MS: 'email.timeoutMs',
  YARD_WEBHOOKS_ALLOW_LOCAL_ENDPOINTS: 'webhooks.allowLocalEndpoints',
  YARD_WEBHOOKS_CA_FILE: 'webhooks.caFile',
  YARD_WEBHOOKS_TIMEOUT_MS: 'webhooks.timeoutMs',
  YARD_WEBHOOKS_CONCURRENCY: 'webhooks.concurrency',
  YARD_WEBHOOKS_RETENTION_DAYS: 'webhooks.retentionDays',
  YARD_MQTT_URL: 'mqtt.url',
  YARD_MQTT_USERNAME: 'mqtt.username',
  YARD_MQTT_PASSWORD: 'mqtt.password',
  YARD_MQTT_CA_FILE: 'mqtt.caFile',
  YARD_MQTT_CERT_FILE: 'mqtt.certFile',
  YARD_MQTT_KEY_FILE: 'mqtt.keyFile',
  YARD_MQTT_REJECT_UNAUTHORIZED: 'mqtt.rejectUnauthorized',
  YARD_MQTT_PORT: 'mqtt.port',
  YARD_MQTT_HOST: 'mqtt.host',
  YARD_MQTT_KEEPALIVE_SEC: 'mqtt.keepaliveSec',
  YARD_CLOUD_URL: 'cloudUrl',
  YARD_SYNC_BATCH_ROWS: 'sync.batchRows',
  YARD_SYNC_BATCH_BYTES: 'sync.batchBytes',
  YARD_SYNC_WINDOW: 'sync.window',
  YARD_SYNC_COMPRESSION: 'sync.compression',
  YARD_SYNC_ACK_TIMEOUT_MS: 'sync.ackTimeoutMs',
  YARD_SYNC_COMMAND_TIMEOUT_MS: 'sync.commandTimeoutMs',
  YARD_SYNC_RETENTION_DAYS: 'sync.retentionDays',
  YARD_SYNC_MAX_CLOCK_AHEAD_MS: 'sync.maxClockAheadMs',
  YARD_READ_WORKERS: 'readWorkers',
  YARD_DATABASE_URL: 'database.url',
  YARD_DATABASE_POOL_MAX: 'database.poolMax',
  YARD_DATABASE_STATEMENT_TIMEOUT_MS: 'database.statementTimeoutMs',
};

const BOOLEAN_PATHS = new Set([
  'log.pretty',
  'mqtt.rejectUnauthorized',
  'push.allowLocalEndpoints',
  'email.allowLocalSmtp',
  'webhooks.allowLocalEndpoints',
]);

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
}

function parseEnvValue(path: string, raw: string): unknown {
  if (BOOLEAN_PATHS.has(path)) return raw === 'true' || raw === '1';
  if (path === 'http.trustProxy') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

/**
 * The configuration as given, before defaults and validation. Sources, later wins: the optional
 * JSON config file (YARD_CONFIG_FILE) < environment variables (YARD_*) < overrides (tests, tools).
 * A file that cannot be read is a problem, reported with the schema's.
 */
export function configInput(
  env: NodeJS.ProcessEnv,
  overrides: Record<string, unknown>,
): { input: Record<string, unknown>; problems: string[] } {
  const problems: string[] = [];
  let input: Record<string, unknown> = {};
  const file = env.YARD_CONFIG_FILE;
  if (file) {
    try {
      input = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      problems.push(`YARD_CONFIG_FILE ${file}: ${(err as Error).message}`);
    }
  }
  for (const [name, path] of Object.entries(ENV_MAP)) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') setPath(input, path, parseEnvValue(path, raw));
  }
  for (const [path, value] of Object.entries(overrides)) setPath(input, path, value);
  return { input, problems };
}

/** The environment variable that sets a config path, if any (named in problems). */
export function envNameOf(path: string): string | undefined {
  return ENV_BY_PATH.get(path);
}

const ENV_BY_PATH = new Map(Object.entries(ENV_MAP).map(([name, path]) => [path, name]));
