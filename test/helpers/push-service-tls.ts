import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A self-signed certificate for 127.0.0.1 (P-256, one day), made with the openssl CLI, for the fake
 * push service to serve HTTPS. The process that sends pushes trusts it through NODE_EXTRA_CA_CERTS
 * = `certFile`, so the push path is the production one: https, certificate checked.
 */
export function selfSignedLoopbackCert(): { cert: string; key: string; certFile: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'yard-push-tls-'));
  const certFile = join(dir, 'push-service.crt');
  const keyFile = join(dir, 'push-service.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=fake push service',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return {
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    certFile,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
