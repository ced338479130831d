import { createPrivateKey, X509Certificate as NodeCertificate, randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
// @peculiar/x509 2.x needs a Reflect metadata polyfill loaded first (its dependency injection).
// Only this module loads it: provision-site.ts imports this module only when issuing certificates.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

/**
 * The organisation's own certificate authority, created once by `npm run site:add --tls-host ...`
 * and kept in the cloud's data folder, and the edges' HTTPS certificates it signs. Phones that
 * install the CA's certificate trust every edge's certificate: the driver app then runs in a secure
 * context (service worker, push, location) on the yard LAN without a public domain.
 */

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/**
 * Node's Web Crypto, as the library's parameter type: that is the DOM's Crypto where the DOM types
 * are loaded (the system tests' type check), which Node's own typing does not quite match.
 */
const x509Crypto = webcrypto as unknown as NonNullable<
  Parameters<typeof x509.X509CertificateGenerator.create>[1]
>;
const subtle = webcrypto.subtle;
/** ECDSA P-256: small keys and signatures, fast handshakes on phones, accepted everywhere. */
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The CA outlives many edge certificates; replacing it means reinstalling it on every phone. */
const CA_VALIDITY_DAYS = 3650;
/**
 * Apple refuses TLS server certificates valid for more than 825 days (iOS 13 and later, whatever
 * the root); a day less leaves room for the backdated start below. Chrome's 398-day limit applies
 * only to publicly trusted roots, not to one the user installed.
 */
const LEAF_VALIDITY_DAYS = 824;
/** Starts an hour back, so that a phone whose clock is a little behind still accepts a new one. */
const BACKDATE_MS = 60 * 60 * 1000;

/** Where the CA lives in the cloud's data folder. */
export function caFiles(dataDir: string): { dir: string; key: string; cert: string; der: string } {
  const dir = join(dataDir, 'tls');
  return {
    dir,
    key: join(dir, 'organisation-ca.key'),
    cert: join(dir, 'organisation-ca.crt'),
    der: join(dir, 'organisation-ca.cer'),
  };
}

export interface OrganisationCa {
  cert: x509.X509Certificate;
  key: CryptoKey;
  files: ReturnType<typeof caFiles>;
  /** True when this call created it (the phones need it installed). */
  created: boolean;
}

/** Something about the CA files the operator has to sort out (site:add shows it with the fix). */
export class CertificateError extends Error {
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem}\n${fix}`);
    this.name = 'CertificateError';
  }
}

/**
 * The organisation's CA: loaded from the data folder, or created there when it has none. An
 * existing CA is never replaced (every phone trusts that one); its key is written once, mode 0600.
 */
export async function ensureOrganisationCa(
  dataDir: string,
  organisation: string,
  now = new Date(),
): Promise<OrganisationCa> {
  const files = caFiles(dataDir);
  const hasKey = existsSync(files.key);
  const hasCert = existsSync(files.cert);
  if (hasKey && hasCert) return { ...(await loadCa(files, now)), files, created: false };
  if (hasKey !== hasCert) {
    throw new CertificateError(
      `The organisation's CA in ${files.dir} is incomplete: ${hasKey ? files.cert : files.key} is missing.`,
      'Restore it from a backup. Only if it is lost for good: move the folder aside and run again to create a new CA, then install the new one on every phone.',
    );
  }
  const keys = (await subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerial(),
      name: [{ CN: [`${organisation} yard CA`] }, { O: [organisation] }],
      notBefore: new Date(now.getTime() - BACKDATE_MS),
      notAfter: new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS),
      signingAlgorithm: SIGNING,
      keys,
      extensions: [
        // pathLength 0: it signs the edges' certificates directly, never another CA.
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, x509Crypto),
      ],
    },
    x509Crypto,
  );
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  // 'wx': never overwrite; a CA appearing meanwhile (another run) fails this one instead.
  writeFileSync(files.key, await privateKeyPem(keys.privateKey), { mode: 0o600, flag: 'wx' });
  chmodSync(files.key, 0o600);
  writeFileSync(files.cert, cert.toString('pem'), { mode: 0o644, flag: 'wx' });
  writeFileSync(files.der, Buffer.from(cert.rawData), { mode: 0o644, flag: 'wx' });
  return { cert, key: keys.privateKey, files, created: true };
}

async function loadCa(
  files: ReturnType<typeof caFiles>,
  now: Date,
): Promise<{ cert: x509.X509Certificate; key: CryptoKey }> {
  const certPem = readFileSync(files.cert, 'utf8');
  const keyPem = readFileSync(files.key, 'utf8');
  let matches = false;
  try {
    matches = new NodeCertificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch (err) {
    throw new CertificateError(
      `The organisation's CA in ${files.dir} cannot be read: ${(err as Error).message}.`,
      'Restore organisation-ca.crt and organisation-ca.key from a backup.',
    );
  }
  if (!matches) {
    throw new CertificateError(
      `${files.key} is not the key of ${files.cert}.`,
      'Restore the pair from a backup (the phones trust the certificate: keep it, find its key).',
    );
  }
  const cert = new x509.X509Certificate(certPem);
  if (cert.notAfter <= now) {
    throw new CertificateError(
      `The organisation's CA expired on ${cert.notAfter.toISOString()}.`,
      `Move ${files.dir} aside and run again to create a new CA, then install it on every phone.`,
    );
  }
  const key = await subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPem), KEY_ALGORITHM, false, [
    'sign',
  ]);
  return { cert, key };
}

export interface SiteNames {
  /** DNS names the edge is reached by (yard-edge.lan, edge.site-1.example). */
  hosts: string[];
  /** IP addresses the edge is reached by (192.168.1.20). */
  ips: string[];
}

export interface SiteCertificate {
  certPem: string;
  keyPem: string;
  notAfter: Date;
}

/** The names as given, checked: at least one, DNS names in host-name syntax, addresses IPv4/IPv6. */
export function checkSiteNames(names: SiteNames): string[] {
  const problems: string[] = [];
  if (names.hosts.length + names.ips.length === 0) problems.push('give at least one --tls-host or --tls-ip');
  for (const host of names.hosts) {
    const labels = host.split('.');
    const valid =
      host.length <= 253 &&
      labels.every((label) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label));
    if (!valid) problems.push(`--tls-host "${host}" is not a host name (letters, digits, "-" and dots)`);
  }
  for (const ip of names.ips) {
    if (isIP(ip) === 0) problems.push(`--tls-ip "${ip}" is not an IPv4 or IPv6 address`);
  }
  return problems;
}

/** An edge's HTTPS certificate and its new key, signed by the organisation's CA. */
export async function issueSiteCertificate(
  ca: Pick<OrganisationCa, 'cert' | 'key'>,
  names: SiteNames,
  now = new Date(),
): Promise<SiteCertificate> {
  const problems = checkSiteNames(names);
  if (problems.length > 0)
    throw new CertificateError(`${problems.join('; ')}.`, 'Fix the names and run again.');
  const keys = (await subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  const notAfter = new Date(notBefore.getTime() + LEAF_VALIDITY_DAYS * DAY_MS);
  const hosts = names.hosts.map((h) => h.toLowerCase());
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      // Browsers match only the SAN; the CN is for people reading the certificate.
      subject: [{ CN: [hosts[0] ?? names.ips[0]!] }],
      issuer: ca.cert.subjectName,
      notBefore,
      notAfter,
      signingAlgorithm: SIGNING,
      publicKey: keys.publicKey,
      signingKey: ca.key,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        // ECDSA keys sign the handshake; keyEncipherment belongs to RSA key transport only.
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          ...hosts.map((value) => ({ type: 'dns' as const, value })),
          ...names.ips.map((value) => ({ type: 'ip' as const, value })),
        ]),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, x509Crypto),
        await x509.AuthorityKeyIdentifierExtension.create(ca.cert, false, x509Crypto),
      ],
    },
    x509Crypto,
  );
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey), notAfter };
}

/** 16 random bytes, positive (top bit clear), as the CA/Browser Forum asks of serials. */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return `${x509.PemConverter.encode(await subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}
