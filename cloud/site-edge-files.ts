import { resolve } from 'node:path';
import { type Config, configSchema } from '../shared/config.js';
import { ProvisionError } from './provision-error.js';

/*
 * What a provisioned site's edge is given: its config file and, when asked, its HTTPS certificate.
 */

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

/**
 * The edge's HTTPS certificate, issued before anything is saved (bad names change nothing). The
 * certificate code, and the polyfill its library needs, load only when a certificate is asked for.
 */
export async function siteCertificate(
  config: Config,
  siteId: string,
  outDir: string,
  tls: SiteTlsOptions,
): Promise<IssuedSiteCertificate> {
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

/** A certificate issued for a site, before its files are written. */
export interface IssuedSiteCertificate {
  result: ProvisionedTls;
  /** The paths the edge's config names (its tls section). */
  onEdge: { certFile: string; keyFile: string };
  certPem: string;
  keyPem: string;
}

/** The edge's YARD_CONFIG_FILE, checked against the config schema so it loads on the edge. */
export function edgeConfigFor(
  siteId: string,
  password: string,
  mqttUrl: string,
  options: { caFile?: string | undefined; cloudUrl?: string | undefined },
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
