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
import { type Config, configSchema } from '../shared/config.js';
import type { Kdb } from '../shared/db/database.js';
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
  /**
   * The edge ran standalone before it is linked: an admin may adopt its own yards, locations and
   * carriers (docs/sync.md "Dead letters, retry and adoption"). Without it the site is linked from
   * the start and nothing of it is ever adopted.
   */
  wasStandalone?: boolean | undefined;
  /** Issue the edge's HTTPS certificate from the organisation's CA (created on first use). */
  tls?: SiteTlsOptions | undefined;
}

export interface SiteTlsOptions {
  /** DNS names and IP addresses the phones reach the edge by (the certificate's SAN). */
  hosts: string[];
  ips: string[];
  /** The organisation's name, in the CA's name (used only when the CA is created). */
  organisation?: string | undefined;
  /** The folder on the edge the certificate and key files are copied to (default: outDir). */
  edgeDir?: string | undefined;
}

/** The edge's certificate files, and the CA certificate to install on the phones. */
export interface ProvisionedTls {
  certFile: string;
  keyFile: string;
  notAfter: Date;
  caCertFile: string;
  caDerFile: string;
  caCreated: boolean;
}

export interface ProvisionResult {
  site: SiteRecord;
  /** Its edge ran standalone before: its own master data may be adopted. */
  wasStandalone: boolean;
  rotated: boolean;
  /** The edge's config file (contains the password; mode 0600). */
  edgeConfigFile: string;
  mosquittoPasswd?: string | undefined;
  mqttUrl: string;
  warnings: string[];
  tls?: ProvisionedTls | undefined;
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
  const tls = options.tls && (await siteCertificate(config, siteId, options.outDir, options.tls));
  const edgeConfig = `${JSON.stringify(edgeConfigFor(siteId, password, mqttUrl, options, tls?.onEdge), null, 2)}\n`;
  const edgeConfigFile = resolve(options.outDir, `${siteId}.edge.json`);
  const passwdFile = options.mosquittoPasswd ? resolve(options.mosquittoPasswd) : undefined;
  const staged: Array<{ tmp: string; target: string }> = [];
  try {
    return await kysely.transaction().execute(async (trx) => {
      const sites = new SiteRepo(trx, { reservedIds: [cloudUser] });
      const rotated = await saveSite(sites, siteId, password, options);
      staged.push(stage(edgeConfigFile, edgeConfig, 0o600));
      if (tls) {
        staged.push(stage(tls.result.certFile, tls.certPem, 0o644));
        // A private key is 0600 whatever the file it replaces was.
        staged.push(stage(tls.result.keyFile, tls.keyPem, 0o600, { keepMode: false }));
      }
      if (passwdFile) {
        const hash = (await sites.passwordHash(siteId))!;
        staged.push(stage(passwdFile, passwordFileWith(passwdFile, siteId, hash), 0o640));
      }
      for (const file of staged.splice(0)) renameSync(file.tmp, file.target);
      const site = (await sites.get(siteId))!;
      return {
        site,
        wasStandalone: await sites.wasStandalone(siteId),
        rotated,
        edgeConfigFile,
        mosquittoPasswd: passwdFile,
        mqttUrl,
        warnings,
        tls: tls?.result,
      };
    });
  } catch (err) {
    throw asProvisionError(err);
  } finally {
    for (const file of staged) rmSync(file.tmp, { force: true });
  }
}

export interface CertificateRenewal {
  site: SiteRecord;
  tls: ProvisionedTls;
  /** The paths the edge's config names (its tls section), where the new files go on the edge. */
  onEdge: { certFile: string; keyFile: string };
}

/**
 * A new HTTPS certificate and key for an existing site (`site:add --renew-certificate`), before the
 * old one expires or when its names change: the MQTT password and the edge's config file are left
 * as they are.
 */
export async function renewSiteCertificate(
  kysely: Kdb,
  config: Config,
  options: ProvisionOptions,
): Promise<CertificateRenewal> {
  assertCloudRole(config);
  const cloudUser = config.mqtt.username ?? 'cloud';
  const siteId = checkSiteId(options.siteId, cloudUser);
  if (!options.tls) {
    throw new ProvisionError('A certificate needs names.', 'Add --tls-host and/or --tls-ip.');
  }
  const site = await new SiteRepo(kysely, { reservedIds: [cloudUser] }).get(siteId);
  if (!site) {
    throw new ProvisionError(`Site ${siteId} does not exist.`, 'Leave out --renew-certificate to create it.');
  }
  const tls = await siteCertificate(config, siteId, options.outDir, options.tls);
  const staged: Array<{ tmp: string; target: string }> = [];
  try {
    staged.push(stage(tls.result.certFile, tls.certPem, 0o644));
    staged.push(stage(tls.result.keyFile, tls.keyPem, 0o600, { keepMode: false }));
    for (const file of staged.splice(0)) renameSync(file.tmp, file.target);
  } finally {
    for (const file of staged) rmSync(file.tmp, { force: true });
  }
  return { site, tls: tls.result, onEdge: tls.onEdge };
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
  if (options.wasStandalone) await sites.markStandalone(siteId);
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

export function assertCloudRole(config: Config): void {
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

/**
 * The edge's HTTPS certificate, issued before anything is saved (bad names change nothing). The
 * certificate code, and the polyfill its library needs, load only when a certificate is asked for.
 */
async function siteCertificate(config: Config, siteId: string, outDir: string, tls: SiteTlsOptions) {
  const certs = await import('./site-certificates.js');
  const problems = certs.checkSiteNames(tls);
  if (problems.length > 0) {
    throw new ProvisionError(
      `${problems.join('; ')}.`,
      'Name the edge as the phones reach it, e.g. --tls-host yard-edge.lan --tls-ip 192.168.1.20.',
    );
  }
  try {
    const ca = await certs.ensureOrganisationCa(resolve(config.dataDir), tls.organisation ?? 'Yard service');
    const issued = await certs.issueSiteCertificate(ca, tls);
    const edgeDir = (tls.edgeDir ?? resolve(outDir)).replace(/\/+$/, '');
    const result: ProvisionedTls = {
      certFile: resolve(outDir, `${siteId}.edge.crt`),
      keyFile: resolve(outDir, `${siteId}.edge.key`),
      notAfter: issued.notAfter,
      caCertFile: ca.files.cert,
      caDerFile: ca.files.der,
      caCreated: ca.created,
    };
    const onEdge = { certFile: `${edgeDir}/${siteId}.edge.crt`, keyFile: `${edgeDir}/${siteId}.edge.key` };
    return { result, onEdge, certPem: issued.certPem, keyPem: issued.keyPem };
  } catch (err) {
    if (err instanceof certs.CertificateError) throw new ProvisionError(err.problem, err.fix);
    throw err;
  }
}

/** The edge's YARD_CONFIG_FILE, checked against the config schema so it loads on the edge. */
function edgeConfigFor(
  siteId: string,
  password: string,
  mqttUrl: string,
  options: ProvisionOptions,
  tls?: { certFile: string; keyFile: string },
) {
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
    ...(tls ? { tls } : {}),
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
function stage(
  target: string,
  content: string,
  mode: number,
  { keepMode = true }: { keepMode?: boolean } = {},
): { tmp: string; target: string } {
  const dir = dirname(target);
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
    // Keep the owner and mode of a file we replace (the operator made it readable by mosquitto).
    const current = existsSync(target) ? statSync(target) : undefined;
    const keptMode = current && keepMode ? current.mode & 0o777 : mode;
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
