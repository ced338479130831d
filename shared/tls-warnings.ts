import { isIP } from 'node:net';
import type { Config } from './config.js';
import type { Logger } from './log.js';

/** A link configured without TLS that carries site credentials, and what to do about it. */
export interface PlaintextLink {
  link: 'embedded-broker' | 'mqtt-url' | 'cloud-url';
  message: string;
}

/**
 * The links of this configuration that would carry site credentials in clear over a network: the
 * cloud's embedded MQTT broker without a certificate, an `mqtt://` broker URL, an `http://` cloud
 * URL. Loopback addresses are fine (the traffic never leaves the machine). There is no development
 * mode to tell a test setup from production, so these are warnings, never a refusal to start.
 */
export function plaintextLinks(config: Config): PlaintextLink[] {
  const found: PlaintextLink[] = [];
  const { mqtt } = config;
  if (config.role === 'cloud' && !mqtt.url && !(mqtt.certFile && mqtt.keyFile) && !isLoopback(mqtt.host)) {
    found.push({
      link: 'embedded-broker',
      message:
        `The embedded MQTT broker listens on ${mqtt.host}:${mqtt.port} without TLS: every site's password and ` +
        'everything synced (password hashes, integration secrets) cross the network in clear. ' +
        'Set YARD_MQTT_CERT_FILE and YARD_MQTT_KEY_FILE, or use Mosquitto with TLS (deploy/mosquitto).',
    });
  }
  if (mqtt.url && /^(mqtt|tcp):/.test(mqtt.url) && !isLoopback(hostOf(mqtt.url))) {
    found.push({
      link: 'mqtt-url',
      message:
        `The MQTT broker URL ${redact(mqtt.url)} has no TLS: this ${config.role}'s broker password and ` +
        'everything synced cross the network in clear. Use mqtts:// (YARD_MQTT_URL).',
    });
  }
  if (
    config.role === 'edge' &&
    config.cloudUrl?.startsWith('http:') &&
    !isLoopback(hostOf(config.cloudUrl))
  ) {
    found.push({
      link: 'cloud-url',
      message:
        `YARD_CLOUD_URL ${redact(config.cloudUrl)} has no TLS: the site's password (sent with every attachment ` +
        'upload and download) and the attachment bytes cross the network in clear. Use https://.',
    });
  }
  return found;
}

/**
 * Why an edge's web apps reached over the network will not be a secure context, or undefined: the
 * edge listens beyond loopback without a certificate. Phones then give the driver app no service
 * worker (no offline use), no push and no location. Not a plaintextLinks entry: staff logins in
 * clear on the yard's own LAN is the operator's call, the missing features are what to point out.
 */
export function insecureContextWarning(config: Config): string | undefined {
  if (config.role !== 'edge' || config.tls.certFile || isLoopback(config.http.host)) return undefined;
  return (
    `The edge serves plain HTTP on ${config.http.host}:${config.http.port}: on phones the driver app gets no ` +
    'offline use, push or location (they need HTTPS), and logins cross the network in clear. ' +
    'Issue a certificate with npm run site:add -- <siteId> --tls-host <name> and set YARD_TLS_CERT_FILE ' +
    'and YARD_TLS_KEY_FILE (docs/install.md, "HTTPS at the edge").'
  );
}

/** Logs each plaintext link at warn level (at start, edge/main.ts and cloud/main.ts). */
export function warnPlaintextLinks(config: Config, log: Logger): void {
  for (const { link, message } of plaintextLinks(config)) log.warn({ link, risk: 'no-tls' }, message);
  const insecure = insecureContextWarning(config);
  if (insecure) log.warn({ link: 'http', risk: 'no-secure-context' }, insecure);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
