import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedBroker, startEmbeddedBroker } from '../../../cloud/broker.js';
import { cloudSync, cloudTransport } from '../../../cloud/sync/index.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { SiteRepo } from '../../../shared/modules/sync/sites.js';
import {
  Ack,
  BATCH_LIMITS,
  type Batch,
  decode,
  topicsFor,
  type WireRow,
} from '../../../shared/sync/protocol.js';
import { captureLog } from '../../helpers/log-capture.js';
import { connectOnce } from '../../helpers/mqtt-client.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { waitFor } from '../../helpers/wait-for.js';
import { countAt } from './link-fixture.js';

/**
 * A site's change batches over the protocol limits (BATCH_LIMITS: 500 rows, 256 KiB unless one row)
 * are refused by the cloud before anything is applied: one warning, no dead letters, no ack. Dead
 * letters are logged in summary, one line per applied batch.
 */
const SITE = 'site-big';
const topics = topicsFor(SITE);

describe.each(TEST_DIALECTS)('batch limits (cloud on %s)', (dialect) => {
  let broker: EmbeddedBroker;
  let cloud: TestApp<AppDatabase>;
  let site: MqttClient;
  const acks: Ack[] = [];
  const captured = captureLog('info');

  beforeAll(async () => {
    broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
    cloud = await startTestApp({
      dialect,
      env: { YARD_ROLE: 'cloud', YARD_MQTT_URL: broker.url },
      sync: cloudSync({ transport: (core) => cloudTransport(core.config, core.log, 'batch-limits') }),
      log: captured.log,
    });
    await new SiteRepo(cloud.core.kysely).create({ id: SITE, name: 'Big', password: 'site-password-123' });
    site = await connectOnce(broker.url, SITE, 'x', `edge-${SITE}`).connected;
    site.on('message', (topic, payload) => {
      const ack = topic === topics.downAck ? decode(Ack, payload) : undefined;
      if (ack) acks.push(ack);
    });
    await site.subscribeAsync(topics.downAck, { qos: 1 });
  });

  afterAll(async () => {
    site?.end(true);
    await cloud?.close();
    await broker?.stop();
  });

  /** Rows the cloud cannot apply (an entity it does not know): each becomes a dead letter. */
  function rows(from: number, count: number, data: Record<string, unknown> = {}): WireRow[] {
    return Array.from({ length: count }, (_, i) => ({
      seq: from + i,
      entity: 'no_such_entity',
      id: `row-${from + i}`,
      op: 'upsert' as const,
      hlc: `${Date.now()}-0000-${SITE}`,
      data: { id: `row-${from + i}`, ...data },
    }));
  }

  function batch(stream: string, from: number, batchRows: WireRow[]): Batch {
    return { v: 1, site: SITE, stream, from, to: from + batchRows.length - 1, schemaV: 1, rows: batchRows };
  }

  const publish = (b: Batch) => site.publishAsync(topics.upChanges, JSON.stringify(b), { qos: 1 });
  const deadLetters = () => countAt(cloud.db, 'SELECT count(*) FROM dead_letter');
  const ackOf = (stream: string) => acks.find((a) => a.stream === stream);
  const overLimit = () => captured.lines.filter((l) => /over the protocol limits/.test(l.msg));
  const deadLetterLines = () => captured.lines.filter((l) => /dead-lettered/.test(l.msg));

  describe('change batches over the protocol limits', () => {
    it('a 100,000-row batch is refused unread: one warning, no dead letters, no ack; the next batch applies', async () => {
      await publish(batch('big', 1, rows(1, 100_000)));
      await publish(batch('small', 1, rows(1, 3)));
      // Batches are handled in order: once the small one is acknowledged, the big one was dealt with.
      await waitFor(() => ackOf('small'), { what: 'the ack of the small batch' });
      expect(ackOf('small')?.upTo).toBe(3);
      expect(ackOf('big')).toBeUndefined();
      expect(await deadLetters()).toBe(3);
      expect(overLimit()).toHaveLength(1);
      expect(overLimit()[0]).toMatchObject({ level: 40, peer: SITE, over: '100000 rows (at most 500)' });
      // The small batch's three dead letters: one summary line naming them.
      await waitFor(() => deadLetterLines().length > 0, { what: 'the dead-letter summary' });
      expect(deadLetterLines()).toHaveLength(1);
      expect(deadLetterLines()[0]).toMatchObject({
        peer: SITE,
        count: 3,
        entities: { no_such_entity: 3 },
      });
      expect((deadLetterLines()[0]!.first as unknown[]).length).toBe(3);
    });

    it('a full batch of refused rows is one dead-letter log line', async () => {
      const before = deadLetterLines().length;
      await publish(batch('full', 1, rows(1, BATCH_LIMITS.rows)));
      await waitFor(() => ackOf('full'), { what: 'the ack of the full batch' });
      await waitFor(() => deadLetterLines().length > before, { what: 'the dead-letter summary' });
      expect(deadLetterLines().slice(before)).toHaveLength(1);
      const line = deadLetterLines().at(-1)!;
      expect(line).toMatchObject({ count: BATCH_LIMITS.rows });
      expect(line.first as unknown[]).toHaveLength(5);
    });

    it('more than 256 KiB in several rows is refused; a single larger row is not', async () => {
      const big = { note: 'x'.repeat(150 * 1024) };
      await publish(batch('two-large', 1, rows(1, 2, big)));
      await publish(batch('one-large', 1, rows(1, 1, { note: 'x'.repeat(300 * 1024) })));
      await waitFor(() => ackOf('one-large'), { what: 'the ack of the single large row' });
      expect(ackOf('two-large')).toBeUndefined();
      expect(overLimit().at(-1)).toMatchObject({ over: expect.stringMatching(/bytes in 2 rows/) });
    });
  });
});
