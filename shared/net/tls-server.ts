import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { type Config, ConfigError } from '../config.js';

/** What the HTTPS server is given: the certificate (with its chain after it) and the key, PEM. */
export interface TlsCredentials {
  cert: string;
  key: string;
  /** The server's own certificate, for the names it covers (the redirect checks them). */
  leaf: X509Certificate;
}

/**
 * Reads and checks the configured certificate and key before anything starts, so that a typo in a
 * path or a key from another certificate stops the start with what to fix (ConfigError), instead of
 * an edge that listens but fails every handshake. Undefined when HTTPS is not configured.
 */
export function readTlsCredentials(config: Config): TlsCredentials | undefined {
  const { certFile, keyFile, caFile } = config.tls;
  if (!certFile || !keyFile) return undefined;
  const problems: string[] = [];
  const read = (file: string, variable: string): string | undefined => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      problems.push(`${variable} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? err}).`);
      return undefined;
    }
  };
  const certPem = read(certFile, 'YARD_TLS_CERT_FILE');
  const keyPem = read(keyFile, 'YARD_TLS_KEY_FILE');
  const chainPem = caFile ? read(caFile, 'YARD_TLS_CA_FILE') : '';
  if (problems.length > 0) throw new ConfigError(problems);

  let leaf: X509Certificate | undefined;
  try {
    leaf = new X509Certificate(certPem!);
  } catch {
    problems.push(`YARD_TLS_CERT_FILE ${certFile}: not a PEM certificate ("-----BEGIN CERTIFICATE-----").`);
  }
  let key: ReturnType<typeof createPrivateKey> | undefined;
  try {
    key = createPrivateKey(keyPem!);
  } catch {
    problems.push(
      `YARD_TLS_KEY_FILE ${keyFile}: not an unencrypted PEM private key ("-----BEGIN PRIVATE KEY-----").`,
    );
  }
  if (leaf && key && !leaf.checkPrivateKey(key)) {
    problems.push(
      `YARD_TLS_KEY_FILE ${keyFile} is not the key of the certificate in ${certFile}: ` +
        'use the key file issued with that certificate.',
    );
  }
  if (chainPem && !/-----BEGIN CERTIFICATE-----/.test(chainPem)) {
    problems.push(`YARD_TLS_CA_FILE ${caFile}: holds no PEM certificate.`);
  }
  if (problems.length > 0) throw new ConfigError(problems);

  // The certificates the server sends: its own, then the intermediates of the chain (if any).
  const cert = chainPem ? `${certPem!.trimEnd()}\n${chainPem.trim()}\n` : certPem!;
  try {
    createSecureContext({ cert, key: keyPem! });
  } catch (err) {
    throw new ConfigError([`YARD_TLS_CERT_FILE / YARD_TLS_CA_FILE: ${(err as Error).message}.`]);
  }
  return { cert, key: keyPem!, leaf: leaf! };
}

/** Why a certificate that loads will still be refused by phones, for a warning at start. */
export function certificateValidityProblem(leaf: X509Certificate, now = new Date()): string | undefined {
  const from = new Date(leaf.validFrom);
  const to = new Date(leaf.validTo);
  if (now < from)
    return `The HTTPS certificate is valid only from ${from.toISOString()}: check this machine's clock.`;
  if (now > to) {
    return `The HTTPS certificate expired on ${to.toISOString()}: browsers refuse it. Issue a new one (npm run site:add).`;
  }
  return undefined;
}

/**
 * The host of a plain-HTTP request's Host header when the certificate covers it, else undefined.
 * Only hosts the certificate names are redirected to: the redirect can then never send anyone to
 * another server (an open redirect), and never to an https:// address that would fail its check.
 */
export function coveredHost(hostHeader: string | undefined, leaf: X509Certificate): string | undefined {
  if (!hostHeader || hostHeader.length > 260) return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::\d{1,5})?$/.exec(hostHeader);
  if (!match) return undefined;
  const ipv6 = match[1];
  if (ipv6) return isIP(ipv6) === 6 && leaf.checkIP(ipv6) ? `[${ipv6}]` : undefined;
  const host = match[2]!.toLowerCase().replace(/\.$/, '');
  if (isIP(host) === 4) return leaf.checkIP(host) ? host : undefined;
  return leaf.checkHost(host, { wildcards: true, singleLabelSubdomains: false }) ? host : undefined;
}
