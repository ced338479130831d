import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Config } from '../shared/config.js';
import type { Kdb } from '../shared/db/database.js';
import { AppError } from '../shared/http/errors.js';
import { type SiteRecord, SiteRepo, siteIdSchema } from '../shared/modules/sync/sites.js';
import { ProvisionError } from './provision-error.js';
import {
  edgeConfigFor,
  type IssuedSiteCertificate,
  type ProvisionedTls,
  type SiteTlsOptions,
  siteCertificate,
} from './site-edge-files.js';
import { passwordFileWith, StagedFiles } from './staged-files.js';

export { ProvisionError } from './provision-error.js';
export type { ProvisionedTls, SiteTlsOptions } from './site-edge-files.js';

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
  const { siteId, cloudUser } = siteToProvision(config, options);
  const { mqttUrl, warnings } = addresses(config, options);
  const password = randomBytes(32).toString('base64url');
  const tls = options.tls && (await siteCertificate(config, siteId, options.outDir, options.tls));
  const edgeConfig = `${JSON.stringify(edgeConfigFor(siteId, password, mqttUrl, options, tls?.onEdge), null, 2)}\n`;
  const edgeConfigFile = resolve(options.outDir, `${siteId}.edge.json`);
  const passwdFile = options.mosquittoPasswd ? resolve(options.mosquittoPasswd) : undefined;
  const files = new StagedFiles();
  try {
    return await kysely.transaction().execute(async (trx) => {
      const sites = new SiteRepo(trx, { reservedIds: [cloudUser] });
      const rotated = await saveSite(sites, siteId, password, options);
      files.add(edgeConfigFile, edgeConfig, 0o600);
      if (tls) stageCertificate(files, tls);
      if (passwdFile) {
        const hash = (await sites.passwordHash(siteId))!;
        files.add(passwdFile, passwordFileWith(passwdFile, siteId, hash), 0o640);
      }
      files.commit();
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
    files.discard();
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
  const { siteId, cloudUser } = siteToProvision(config, options);
  if (!options.tls) {
    throw new ProvisionError('A certificate needs names.', 'Add --tls-host and/or --tls-ip.');
  }
  const site = await new SiteRepo(kysely, { reservedIds: [cloudUser] }).get(siteId);
  if (!site) {
    throw new ProvisionError(`Site ${siteId} does not exist.`, 'Leave out --renew-certificate to create it.');
  }
  const tls = await siteCertificate(config, siteId, options.outDir, options.tls);
  const files = new StagedFiles();
  try {
    stageCertificate(files, tls);
    files.commit();
  } finally {
    files.discard();
  }
  return { site, tls: tls.result, onEdge: tls.onEdge };
}

/** The certificate and its key; a private key is 0600 whatever the file it replaces was. */
function stageCertificate(files: StagedFiles, tls: IssuedSiteCertificate): void {
  files.add(tls.result.certFile, tls.certPem, 0o644);
  files.add(tls.result.keyFile, tls.keyPem, 0o600, { keepMode: false });
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

/** The site id to provision, checked, at the cloud (whose own MQTT username no site may take). */
function siteToProvision(config: Config, options: ProvisionOptions): { siteId: string; cloudUser: string } {
  assertCloudRole(config);
  const cloudUser = config.mqtt.username ?? 'cloud';
  return { siteId: checkSiteId(options.siteId, cloudUser), cloudUser };
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

function asProvisionError(err: unknown): unknown {
  if (err instanceof ProvisionError || !(err instanceof AppError)) return err;
  const fields = err.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new ProvisionError(
    `${err.detail}${fields ? ` (${fields})` : ''}`,
    'Fix the value above and run again.',
  );
}
