import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOrganisationCa, issueSiteCertificate } from '../../../cloud/site-certificates.js';
import { certificateValidityProblem, coveredHost } from '../../../shared/net/tls-server.js';

/**
 * Which Host headers the HTTP-to-HTTPS redirect may send a browser back to: only the certificate's
 * own names and addresses, normalised, never something that merely contains one of them.
 */
const dir = mkdtempSync(join(tmpdir(), 'yard-covered-'));
let leaf: X509Certificate;

beforeAll(async () => {
  const ca = await ensureOrganisationCa(dir, 'Test Org');
  const issued = await issueSiteCertificate(ca, {
    hosts: ['yard-edge.lan'],
    ips: ['192.168.1.20', 'fd00::20'],
  });
  leaf = new X509Certificate(issued.certPem);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('coveredHost', () => {
  it.each([
    ['yard-edge.lan', 'yard-edge.lan'],
    ['yard-edge.lan:8080', 'yard-edge.lan'],
    ['YARD-EDGE.LAN', 'yard-edge.lan'],
    ['yard-edge.lan.', 'yard-edge.lan'],
    ['192.168.1.20:80', '192.168.1.20'],
    ['[fd00::20]:80', '[fd00::20]'],
    ['[fd00:0:0:0:0:0:0:20]', '[fd00:0:0:0:0:0:0:20]'],
  ])('%s -> %s', (header, expected) => {
    expect(coveredHost(header, leaf)).toBe(expected);
  });

  it.each([
    [undefined],
    [''],
    ['other.lan'],
    ['x.yard-edge.lan'],
    ['yard-edge.lan.evil.example'],
    ['evil.example@yard-edge.lan'],
    ['yard-edge.lan/evil'],
    ['yard-edge.lan:80:80'],
    ['192.168.1.21'],
    ['[fd00::21]'],
    ['fd00::20'],
    ['[yard-edge.lan]'],
    [`${'a'.repeat(300)}.lan`],
  ])('%s -> not covered', (header) => {
    expect(coveredHost(header, leaf)).toBeUndefined();
  });
});

describe('certificateValidityProblem', () => {
  it('is silent while the certificate is valid, and says what to do before and after', () => {
    expect(certificateValidityProblem(leaf)).toBeUndefined();
    expect(certificateValidityProblem(leaf, new Date(Date.parse(leaf.validFrom) - 86_400_000))).toMatch(
      /valid only from .*clock/,
    );
    expect(certificateValidityProblem(leaf, new Date(Date.parse(leaf.validTo) + 1000))).toMatch(
      /expired on .*npm run site:add/,
    );
  });
});
