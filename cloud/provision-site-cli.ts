/**
 * `npm run site:add`: the command line of site provisioning (provision-site.ts does the work): its
 * arguments, the cloud's configuration and database, and the report of what was done and what next.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../shared/config.js';
import type { AppDatabase } from '../shared/db/database.js';
import { openAppDatabase } from '../shared/db/open-app-database.js';
import { isEntryPoint } from '../shared/process.js';
import {
  assertCloudRole,
  type CertificateRenewal,
  ProvisionError,
  type ProvisionOptions,
  type ProvisionResult,
  provisionSite,
  renewSiteCertificate,
  type SiteTlsOptions,
} from './provision-site.js';

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
  --was-standalone           The edge ran standalone before it is linked: an admin may then adopt
                             its own yards (they must name this site id), locations and carriers.
                             Without it nothing of the site is ever adopted

HTTPS at the edge (docs/install.md, "HTTPS at the edge"): a certificate from the organisation's own CA,
which is created on first use in the cloud's data folder (tls/) and kept:
  --tls-host <name>          A host name phones reach the edge by (repeat for more)
  --tls-ip <address>         An IP address phones reach the edge by (repeat for more)
  --tls-org <text>           The organisation's name, in the CA's name (first run only)
  --tls-edge-dir <dir>       Where the .crt/.key files go on the edge (default: the --out folder)
  --renew-certificate        Only a new certificate and key for an existing site (before the old
                             one expires, or for new names); its password and config stay as they are
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
  // On PostgreSQL (YARD_DATABASE_URL) the site goes into the cloud's shared database.
  const isNew = !config.database.url && !existsSync(dbFile);
  let db: AppDatabase | undefined;
  try {
    assertCloudRole(config);
    db = await openAppDatabase(config);
    if (args.renew) {
      io.out(renewalReport(await renewSiteCertificate(db.kysely, config, args.options)));
      return 0;
    }
    const result = await provisionSite(db.kysely, config, args.options);
    io.out(report(result, db.dialect === 'sqlite' ? dbFile : db.where, isNew));
    return 0;
  } catch (err) {
    if (!(err instanceof ProvisionError)) throw err;
    io.err(`Error: ${err.problem}\n${err.fix}`);
    return 1;
  } finally {
    await db?.close();
  }
}

function parseCliArgs(argv: string[]): { help: boolean; renew: boolean; options: ProvisionOptions } {
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
      'was-standalone': { type: 'boolean' },
      'tls-host': { type: 'string', multiple: true },
      'tls-ip': { type: 'string', multiple: true },
      'tls-org': { type: 'string' },
      'tls-edge-dir': { type: 'string' },
      'renew-certificate': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true, renew: false, options: { siteId: '', outDir: '.' } };
  const renew = values['renew-certificate'] ?? false;
  if (renew && (values['rotate-password'] || values['mosquitto-passwd'])) {
    throw new Error(
      '--renew-certificate changes only the certificate: leave out --rotate-password and --mosquitto-passwd.',
    );
  }
  if (renew && !values['tls-host'] && !values['tls-ip']) {
    throw new Error('--renew-certificate needs the names to certify: --tls-host and/or --tls-ip.');
  }
  if (positionals.length !== 1) {
    throw new Error(
      positionals.length === 0 ? 'Missing <siteId>.' : `One site id only, got: ${positionals.join(' ')}`,
    );
  }
  return {
    help: false,
    renew,
    options: {
      siteId: positionals[0]!,
      name: values.name,
      mqttUrl: values['mqtt-url'],
      cloudUrl: values['cloud-url'],
      caFile: values['ca-file'],
      outDir: values.out ?? '.',
      mosquittoPasswd: values['mosquitto-passwd'],
      rotatePassword: values['rotate-password'] ?? false,
      wasStandalone: values['was-standalone'] ?? false,
      tls: tlsOptions(values),
    },
  };
}

function tlsOptions(values: {
  'tls-host'?: string[] | undefined;
  'tls-ip'?: string[] | undefined;
  'tls-org'?: string | undefined;
  'tls-edge-dir'?: string | undefined;
}): SiteTlsOptions | undefined {
  const hosts = values['tls-host'] ?? [];
  const ips = values['tls-ip'] ?? [];
  if (hosts.length + ips.length === 0) {
    if (values['tls-org'] || values['tls-edge-dir']) {
      throw new Error('--tls-org and --tls-edge-dir go with --tls-host or --tls-ip (the names to certify).');
    }
    return undefined;
  }
  return { hosts, ips, organisation: values['tls-org'], edgeDir: values['tls-edge-dir'] };
}

function renewalReport({ site, tls, onEdge }: CertificateRenewal): string {
  return [
    `New HTTPS certificate for site ${site.id} (valid until ${tls.notAfter.toISOString().slice(0, 10)}): ${tls.certFile}`,
    `Its private key (mode 0600): ${tls.keyFile}`,
    "The site's MQTT password and its edge config file are unchanged.",
    '',
    'Next steps:',
    `  1. Copy both files to the edge as ${onEdge.certFile} and ${onEdge.keyFile}`,
    "     (the paths in its config's tls section; add that section if it has none), then send the edge",
    '     SIGHUP (kill -HUP <pid>, pm2 sendSignal SIGHUP <name>) or restart it.',
    tls.caCreated
      ? `  2. This created the organisation CA: install ${tls.caCertFile} on the drivers' phones (docs/install.md, "HTTPS at the edge").`
      : `  2. Phones that trust ${tls.caCertFile} need nothing new.`,
  ].join('\n');
}

function report(result: ProvisionResult, database: string, isNewDb: boolean): string {
  const { site } = result;
  const lines = [
    `${result.rotated ? 'New MQTT password for' : 'Created'} site ${site.id} ("${site.name}") in ${database}${isNewDb ? ' (new database)' : ''}.`,
    `Edge config (contains the password, mode 0600): ${result.edgeConfigFile}`,
  ];
  if (result.mosquittoPasswd) lines.push(`Mosquitto password file updated: ${result.mosquittoPasswd}`);
  lines.push(
    result.wasStandalone
      ? 'Its edge ran standalone before: an admin without a yard scope reviews and adopts its own yards, locations and carriers once they arrive (docs/security.md, "Linking an edge that ran standalone").'
      : 'Linked from the start: nothing of this site is ever adopted (an edge that ran standalone needs --was-standalone).',
  );
  if (result.tls) {
    const { tls } = result;
    lines.push(
      `Edge HTTPS certificate (valid until ${tls.notAfter.toISOString().slice(0, 10)}): ${tls.certFile}`,
      `Its private key (mode 0600): ${tls.keyFile}`,
      `${tls.caCreated ? 'Created the organisation CA' : "The organisation's CA"}: ${tls.caCertFile} (for phones; ${tls.caDerFile} as DER)`,
    );
    if (tls.caCreated)
      lines.push(`  Back up ${dirname(tls.caCertFile)}: its key signs every edge's certificate.`);
  }
  for (const warning of result.warnings) lines.push(`Warning: ${warning}`);
  lines.push('', 'Next steps:');
  lines.push(`  1. Copy ${result.edgeConfigFile} to the edge (e.g. scp), readable only by the service user,`);
  lines.push('     and start the edge with YARD_CONFIG_FILE=<that file>.');
  if (result.tls) {
    lines.push(
      '     Copy the .crt and .key files too, to the folder the edge config names (its tls section).',
      `     Install ${result.tls.caCertFile} on the drivers' phones as a CA certificate (docs/install.md, "HTTPS at the edge").`,
    );
  }
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

if (isEntryPoint(import.meta.url)) {
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
