import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCloud } from '../../../cloud/main.js';
import { startEdge } from '../../../edge/main.js';
import { loadConfig } from '../../../shared/config.js';
import { startFailure } from '../../../shared/process.js';
import { accepts } from '../../helpers/mosquitto-process.js';

/**
 * A process that cannot start (its HTTP port is taken, its address is not this machine's) stops
 * what it had already started before the error reaches its caller, so that nothing is left
 * listening or holding the database, and the error says which part failed.
 */
const dir = mkdtempSync(join(tmpdir(), 'yard-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An address no machine has (TEST-NET-1, RFC 5737): listening on it fails with EADDRNOTAVAIL. */
const NOT_HERE = '192.0.2.1';

async function listening(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function freePort(): Promise<number> {
  const server = await listening();
  await server.close();
  return server.port;
}

describe('a start that fails', () => {
  it('at the cloud (HTTP port in use) stops the embedded broker it had started and says so', async () => {
    const taken = await listening();
    const mqttPort = await freePort();
    try {
      const config = loadConfig(
        {},
        {
          role: 'cloud',
          dataDir: join(dir, 'cloud'),
          http: { port: taken.port, host: '127.0.0.1' },
          mqtt: { port: mqttPort, host: '127.0.0.1' },
        },
      );
      const err = await startCloud(config).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(startFailure(err)).toMatch(/^Port in use: http did not start: .*EADDRINUSE.*Set YARD_HTTP_PORT/);
      // Nothing answers on the broker's port any more: the failed start closed the broker.
      expect(await accepts(mqttPort)).toBe(false);
    } finally {
      await taken.close();
    }
  });

  it('at the edge names the part that failed, and the next start works', async () => {
    const base = { role: 'edge', dataDir: join(dir, 'edge'), adminPassword: 'boss-password-123' };
    const err = await startEdge(loadConfig({}, { ...base, http: { port: 0, host: NOT_HERE } })).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/^http did not start: .*EADDRNOTAVAIL/);
    const edge = await startEdge(loadConfig({}, { ...base, http: { port: 0, host: '127.0.0.1' } }));
    expect((await fetch(`${edge.url}/readyz`)).status).toBe(200);
    await edge.stop();
  });
});
