import { configInput, envNameOf } from './config-env.js';
import { type Config, configSchema } from './config-schema.js';

export { type Config, configSchema } from './config-schema.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Loading the configuration: its sources (config-env.ts) checked against the schema and its
 * defaults (config-schema.ts). Every problem is reported at once; the result is frozen. What the
 * role and the sync mode change is the role profile's (role-profile.ts).
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Record<string, unknown> = {},
): Config {
  const { input, problems } = configInput(env, overrides);
  const result = configSchema.safeParse(input);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const path = issue.path.join('.');
      const name = envNameOf(path);
      const source = name ? ` (${name})` : '';
      problems.push(`${path}${source}: ${issue.message}`);
    }
  }
  if (result.data?.role === 'edge' && result.data.database.url) {
    // The yard box keeps working without a network: its database is the local SQLite file.
    problems.push('database.url (YARD_DATABASE_URL): only the cloud runs on PostgreSQL; an edge uses SQLite');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(result.data!);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Config for secrets-free logging. */
export function redactConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    adminPassword: config.adminPassword ? '***' : undefined,
    metricsKey: config.metricsKey ? '***' : undefined,
    push: { ...config.push, vapidPrivateKey: config.push.vapidPrivateKey ? '***' : undefined },
    mqtt: { ...config.mqtt, password: config.mqtt.password ? '***' : undefined },
    database: { ...config.database, url: config.database.url ? redactUrl(config.database.url) : undefined },
  };
}

/** A URL without its password (for logs and the start banner). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a valid URL)';
  }
}
