import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Config, ConfigError, configSchema, loadConfig } from '../shared/config.js';
import { type AppDatabase, type Kdb, openDatabase } from '../shared/db/database.js';
import { AppError } from '../shared/http/errors.js';
import { type SiteRecord, SiteRepo, siteIdSchema } from '../shared/modules/sync/sites.js';

/** A refusal the operator can act on: what is wrong, and what to do about it. */
export class ProvisionError extends Error {
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem}\n${fix}`);
    this.name = 'ProvisionError';
  }
}

export interface ProvisionOptions {
  siteId: string;
  name?: string | undefined;
  /** The broker address as the edge sees it; default config.mqtt.url, else the embedded broker's port. */
  mqttUrl?: string | undefined;
  cloudUrl?: string | undefined;
  /** CA certificate path on the edge, for an mqtts:// broker with a private CA. */
  caFile?: string | undefined;
  outDir: string;
  /** A Mosquitto password_file to add (or replace) the site's line in. */
  mosquittoPasswd?: string | undefined;
  rotatePassword?: boolean | undefined;
}

export interface ProvisionResult {
  site: SiteRecord;
  rotated: boolean;
  /** The edge's config file (contains the password; mode 0600). */
  edgeConfigFile: string;
  mosquittoPasswd?: string | undefined;
  mqttUrl: string;
  warnings: string[];
}

/**
 * Registers a site at the cloud (or gives it a new MQTT password) and writes what the edge needs.
 * The password exists only in the edge file; the cloud keeps its `$7$` hash, which is also the
 * site's line in Mosquitto's password file. Files are prepared first and moved into place inside
 * the database transaction, so a failure leaves neither a site without credentials nor files for
 * a site that does not exist.
 */
export async function provisionSite(
  kysely: Kdb,
  config: Config,
  options: ProvisionOptions,
): Promise<ProvisionResult> {
  assertCloudRole(config);
  const cloudUser = config.mqtt.username ?? 'cloud';
  const siteId = checkSiteId(options.siteId, cloudUser);
  const { mqttUrl, warnings } = addresses(config, options);
  const password = randomBytes(32).toString('base64url');
  const edgeConfig = `${JSON.stringify(edgeConfigFor(siteId, password, mqttUrl, options), null, 2)}\n`;
  const edgeConfigFile = resolve(options.outDir, `${siteId}.edge.json`);
  const passwdFile = options.mosquittoPasswd ? resolve(options.mosquittoPasswd) : undefined;
  const staged: Array<{ tmp: string; target: string }> = [];
  try {
    return await kysely.transaction().execute(async (trx) => {
      const sites = new SiteRepo(trx, { reservedIds: [cloudUser] });
      const rotated = await saveSite(sites, siteId, password, options);
      staged.push(stage(edgeConfigFile, edgeConfig, 0o600));
      if (passwdFile) {
        const hash = (await sites.passwordHash(siteId))!;
        staged.push(stage(passwdFile, passwordFileWith(passwdFile, siteId, hash), 0o640));
      }
      for (const file of staged.splice(0)) renameSync(file.tmp, file.target);
      const site = (await sites.get(siteId))!;
      return { site, rotated, edgeConfigFile, mosquittoPasswd: passwdFile, mqttUrl, warnings };
    });
  } catch (err) {
    throw asProvisionError(err);
  } finally {
    for (const file of staged) rmSync(file.tmp, { force: true });
  }
}

/** Creates the site, or (with --rotate-password) replaces its password; true when it rotated. */
async function saveSite(
  sites: SiteRepo,
  siteId: string,
  password: string,
  options: ProvisionOptions,
): Promise<boolean> {
  const existing = await sites.get(siteId);
  if (existing && !options.rotatePassword) {
    throw new ProvisionError(
      `Site ${siteId} already exists (${existing.name}).`,
      'To give it new MQTT credentials run again with --rotate-password; the old edge file then stops working.',
    );
  }
  if (!existing && options.rotatePassword) {
    throw new ProvisionError(
      `Site ${siteId} does not exist, so it has no password to rotate.`,
      'Leave out --rotate-password to create it.',
    );
  }
  if (existing) await sites.setPassword(siteId, password);
  else await sites.create({ id: siteId, name: options.name ?? siteId, password });
  return Boolean(existing);
}

/** Where the edge finds the broker, and what the operator should know about the defaults. */
function addresses(config: Config, options: ProvisionOptions): { mqttUrl: string; warnings: string[] } {
  const warnings: string[] = [];
  const mqttUrl = options.mqttUrl ?? config.mqtt.url ?? `mqtt://localhost:${config.mqtt.port}`;
  if (!options.mqttUrl && !config.mqtt.url) {
    warnings.push(
      `No --mqtt-url: the edge file points at ${mqttUrl} (the embedded broker on this machine); ` +
        'an edge on another machine needs the broker address it can reach (edit the file or run again).',
    );
  }
  if (!options.cloudUrl) {
    warnings.push('No --cloud-url: the edge uploads no attachment bytes until cloudUrl is set in its file.');
  }
  return { mqttUrl, warnings };
}

function assertCloudRole(config: Config): void {
  if (config.role === 'cloud') return;
  throw new ProvisionError(
    `This configuration is for the ${config.role} role; sites are provisioned at the cloud.`,
    "Run the command with the cloud's configuration (YARD_ROLE=cloud, its YARD_DATA_DIR or YARD_CONFIG_FILE).",
  );
}

function checkSiteId(siteId: string, cloudUser: string): string {
  if (!siteIdSchema.safeParse(siteId).success) {
    throw new ProvisionError(
      `"${siteId}" is not a valid site id.`,
      'Use 1-64 letters, digits, "_" or "-" (it becomes the MQTT username and a topic level).',
    );
  }
  if (siteId === cloudUser) {
    throw new ProvisionError(`"${siteId}" is the cloud's MQTT username.`, 'Choose another site id.');
  }
  return siteId;
}

/** The edge's YARD_CONFIG_FILE, checked against the config schema so it loads on the edge. */
function edgeConfigFor(siteId: string, password: string, mqttUrl: string, options: ProvisionOptions) {
  const file = {
    role: 'edge' as const,
    siteId,
    mqtt: {
      url: mqttUrl,
      username: siteId,
      password,
      ...(options.caFile ? { caFile: options.caFile } : {}),
    },
    ...(options.cloudUrl ? { cloudUrl: options.cloudUrl } : {}),
  };
  const check = configSchema.safeParse(file);
  if (!check.success) {
    const issues = check.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ProvisionError(
      `The edge config would not load: ${issues}.`,
      'Check --mqtt-url (mqtt://host:port or mqtts://host:port) and --cloud-url (https://host).',
    );
  }
  return file;
}

/** Writes `content` next to `target` (same file system, so the later rename is atomic). */
function stage(target: string, content: string, mode: number): { tmp: string; target: string } {
  const dir = dirname(target);
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
    // Keep the owner and mode of a file we replace (the operator made it readable by mosquitto).
    const current = existsSync(target) ? statSync(target) : undefined;
    const keptMode = current ? current.mode & 0o777 : mode;
    writeFileSync(tmp, content, { mode: keptMode, flag: 'wx' });
    chmodSync(tmp, keptMode);
    if (current && process.getuid?.() === 0) chownSync(tmp, current.uid, current.gid);
    return { tmp, target };
  } catch (err) {
    throw new ProvisionError(
      `Cannot write ${target}: ${(err as Error).message}.`,
      'Check that the directory exists and is writable by this user (or pass another --out).',
    );
  }
}

/** The password file's text with the site's line added, or replaced where it was. */
export function passwordFileWith(file: string, siteId: string, hash: string): string {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const lines = current.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);
  const entry = `${siteId}:${hash}`;
  const at = lines.findIndex((line) => line.startsWith(`${siteId}:`));
  if (at >= 0) lines[at] = entry;
  else lines.push(entry);
  return `${lines.join('\n')}\n`;
}

function asProvisionError(err: unknown): unknown {
  if (err instanceof ProvisionError || !(err instanceof AppError)) return err;
  const fields = err.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new ProvisionError(
    `${err.detail}${fields ? ` (${fields})` : ''}`,
    'Fix the value above and run again.',
  );
}

const USAGE = `Usage: npm run site:add -- <siteId> [options]

Registers a site (an edge) at the cloud, gives it a random MQTT password and writes the edge's
config file. Uses the cloud's configuration (YARD_* variables or YARD_CONFIG_FILE; YARD_ROLE=cloud).

Options:
  --name <text>              Display name (default: the site id)
  --mqtt-url <url>           Broker address as the edge reaches it, e.g. mqtts://broker.example:8883
  --cloud-url <url>          The cloud's HTTPS address, for attachment uploads
  --ca-file <path>           CA certificate path on the edge (private CA for mqtts://)
  --out <dir>                Where to write <siteId>.edge.json (default: current directory)
  --mosquitto-passwd <file>  Add or replace the site's line in this Mosquitto password_file
  --rotate-password          Give an existing site a new password (the old one stops working)
  -h, --help                 Show this help`;

/** The command line: exit code 0 done, 1 refused (explained), 2 bad arguments. */
export async function runProvisionCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: { out: (line: string) => void; err: (line: string) => void },
): Promise<number> {
  let args: ReturnType<typeof parseCliArgs>;
  try {
    args = parseCliArgs(argv);
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.out(USAGE);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err(`${err.message}\nFix the cloud's configuration and run again.`);
    return 1;
  }
  const dbFile = join(resolve(config.dataDir), 'yard.db');
  const isNew = !existsSync(dbFile);
  let db: AppDatabase | undefined;
  try {
    assertCloudRole(config);
    db = openDatabase(dbFile);
    const result = await provisionSite(db.kysely, config, args.options);
    io.out(report(result, dbFile, isNew));
    return 0;
  } catch (err) {
    if (!(err instanceof ProvisionError)) throw err;
    io.err(`Error: ${err.problem}\n${err.fix}`);
    return 1;
  } finally {
    db?.close();
  }
}

function parseCliArgs(argv: string[]): { help: boolean; options: ProvisionOptions } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      'mqtt-url': { type: 'string' },
      'cloud-url': { type: 'string' },
      'ca-file': { type: 'string' },
      out: { type: 'string' },
      'mosquitto-passwd': { type: 'string' },
      'rotate-password': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true, options: { siteId: '', outDir: '.' } };
  if (positionals.length !== 1) {
    throw new Error(
      positionals.length === 0 ? 'Missing <siteId>.' : `One site id only, got: ${positionals.join(' ')}`,
    );
  }
  return {
    help: false,
    options: {
      siteId: positionals[0]!,
      name: values.name,
      mqttUrl: values['mqtt-url'],
      cloudUrl: values['cloud-url'],
      caFile: values['ca-file'],
      outDir: values.out ?? '.',
      mosquittoPasswd: values['mosquitto-passwd'],
      rotatePassword: values['rotate-password'] ?? false,
    },
  };
}

function report(result: ProvisionResult, dbFile: string, isNewDb: boolean): string {
  const { site } = result;
  const lines = [
    `${result.rotated ? 'New MQTT password for' : 'Created'} site ${site.id} ("${site.name}") in ${dbFile}${isNewDb ? ' (new database)' : ''}.`,
    `Edge config (contains the password, mode 0600): ${result.edgeConfigFile}`,
  ];
  if (result.mosquittoPasswd) lines.push(`Mosquitto password file updated: ${result.mosquittoPasswd}`);
  for (const warning of result.warnings) lines.push(`Warning: ${warning}`);
  lines.push('', 'Next steps:');
  lines.push(`  1. Copy ${result.edgeConfigFile} to the edge (e.g. scp), readable only by the service user,`);
  lines.push('     and start the edge with YARD_CONFIG_FILE=<that file>.');
  if (result.mosquittoPasswd) {
    lines.push('  2. Reload Mosquitto so it reads the password file: sudo systemctl reload mosquitto');
  } else {
    lines.push('  2. With the embedded broker nothing else is needed. With Mosquitto, run again with');
    lines.push('     --rotate-password --mosquitto-passwd /etc/mosquitto/passwd, then reload it.');
  }
  if (result.rotated)
    lines.push(
      '  New logins with the old password are refused now (embedded broker) or after the reload (Mosquitto);',
      '  a connection made before stays up until it drops: restart the old edge or the broker to cut it.',
    );
  lines.push(
    `  The edge's link shows in GET /api/sync/status at the cloud once it connects to ${result.mqttUrl}.`,
  );
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runProvisionCli(process.argv.slice(2), process.env, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  }).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
