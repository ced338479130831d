import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCloud } from '../../../cloud/main.js';
import { startEdge } from '../../../edge/main.js';
import { type Config, loadConfig } from '../../../shared/config.js';
import { openDatabase } from '../../../shared/db/database.js';
import { plaintextLinks } from '../../../shared/tls-warnings.js';
import { captureLog } from '../../helpers/log-capture.js';

/**
 * Site credentials travel in the MQTT link and in the edge's uploads to the cloud: a start without
 * TLS on a network address says so at warn level, and the database files are readable by their
 * owner only.
 */
const dir = mkdtempSync(join(tmpdir(), 'yard-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mode = (file: string) => statSync(file).mode & 0o777;

function config(overrides: Record<string, unknown>): Config {
  return loadConfig({}, { dataDir: join(dir, String(Math.random()).slice(2)), ...overrides });
}

describe('database files', () => {
  it('yard.db and its -wal and -shm files are created 0600', () => {
    const file = join(dir, 'db', 'yard.db');
    const db = openDatabase(file);
    try {
      db.sqlite.prepare("INSERT INTO sync_meta (name, value) VALUES ('probe', 'x')").run();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe(0o600);
    } finally {
      db.close();
    }
  });
});

describe('links without TLS', () => {
  const links = (overrides: Record<string, unknown>) => plaintextLinks(config(overrides)).map((l) => l.link);

  it.each([
    [{ role: 'cloud' }, ['embedded-broker']],
    [{ role: 'cloud', mqtt: { host: '127.0.0.1' } }, []],
    [{ role: 'cloud', mqtt: { certFile: '/c.pem', keyFile: '/k.pem' } }, []],
    [{ role: 'cloud', mqtt: { url: 'mqtt://broker.example:1883' } }, ['mqtt-url']],
    [{ role: 'cloud', mqtt: { url: 'mqtts://broker.example:8883' } }, []],
    [
      { role: 'edge', mqtt: { url: 'tcp://10.0.0.5:1883' }, cloudUrl: 'http://cloud.example' },
      ['mqtt-url', 'cloud-url'],
    ],
    [{ role: 'edge', mqtt: { url: 'mqtt://localhost:1883' }, cloudUrl: 'http://127.0.0.1:8080' }, []],
    [{ role: 'edge', mqtt: { url: 'mqtt://[::1]:1883' }, cloudUrl: 'https://cloud.example' }, []],
    [{ role: 'edge', mqtt: { url: 'mqtts://broker.example' }, cloudUrl: 'https://cloud.example' }, []],
    [{ role: 'edge' }, []],
  ])('%j: %j', (overrides, expected) => {
    expect(links(overrides)).toEqual(expected);
  });

  it('a cloud with the embedded broker on a network address and no certificate warns at start', async () => {
    const { log, warnings } = captureLog('info');
    const cloud = await startCloud(
      config({ role: 'cloud', http: { port: 0, host: '127.0.0.1' }, mqtt: { port: 0, host: '0.0.0.0' } }),
      log,
    );
    await cloud.stop();
    const warned = warnings().filter((l) => l.risk === 'no-tls');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ link: 'embedded-broker' });
    expect(warned[0]!.msg).toMatch(/without TLS.*YARD_MQTT_CERT_FILE/);
  });

  it('an edge with an http:// cloud URL warns at start', async () => {
    const { log, warnings } = captureLog('info');
    const edge = await startEdge(
      config({
        role: 'edge',
        http: { port: 0, host: '127.0.0.1' },
        mqtt: { url: 'mqtt://127.0.0.1:9', password: 'site-password-123' },
        cloudUrl: 'http://cloud.example',
      }),
      log,
    );
    await edge.stop();
    const warned = warnings().filter((l) => l.risk === 'no-tls');
    expect(warned.map((l) => l.link)).toEqual(['cloud-url']);
    expect(warned[0]!.msg).toMatch(/YARD_CLOUD_URL http:\/\/cloud\.example.*https:\/\//);
  });
});
