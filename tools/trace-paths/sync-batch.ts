import { type EmbeddedBroker, startEmbeddedBroker } from '../../cloud/broker.js';
import { cloudSync, cloudTransport } from '../../cloud/sync/index.js';
import { edgeSync } from '../../edge/sync/index.js';
import { SiteRepo } from '../../shared/modules/sync/sites.js';
import type { MessageListener, SyncTransport } from '../../shared/sync/transport.js';
import { ADMIN, loginAdmin, startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { waitFor } from '../../test/helpers/wait-for.js';
import type { Probe, TracedPath } from '../trace-path.js';
import { AS_IN_SERVICE, Client, created } from './world.js';

const SITE = 'trace-site';

/**
 * The cloud's side of one batch: a cloud and a linked edge of SITE through an in-process MQTT
 * broker (the real sync runtimes on both). The edge checks a trailer and truck in (one batch of
 * rows: trailer, truck, movement); the cloud's transport holds that batch until the process is
 * quiet, then the probe starts as the message is handed to the cloud's sync and stops when the
 * cloud publishes its ack: link receiver -> applier -> ack, and nothing of the edge.
 */
export async function syncBatchPath(): Promise<TracedPath> {
  const broker: EmbeddedBroker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
  const held = new HoldingTransport();
  const cloud = await startTestApp({
    config: AS_IN_SERVICE,
    env: { YARD_ROLE: 'cloud', YARD_MQTT_URL: broker.url },
    sync: cloudSync({
      transport: (core) => held.around(cloudTransport(core.config, core.log, 'trace', broker.url)),
    }),
  });
  const cloudApi = new Client(cloud.url, cloud.adminToken);
  await new SiteRepo(cloud.core.kysely).create({
    id: SITE,
    name: 'Trace site',
    password: 'trace-password-1',
  });
  const yardId = (
    await created(cloudApi.post('/api/yard', { code: 'TRS', name: 'Trace', timeZone: 'UTC', siteId: SITE }))
  ).id;
  const edge = await startTestApp({
    config: AS_IN_SERVICE,
    env: { YARD_ROLE: 'edge', YARD_SITE_ID: SITE, YARD_MQTT_URL: broker.url },
    sync: edgeSync(),
    login: false,
  });
  await waitFor(() => edge.db.sqlite.prepare('SELECT 1 FROM yard WHERE id = ?').get(yardId), {
    timeoutMs: 20_000,
    what: 'the yard at the edge',
  });
  await waitFor(
    () => edge.db.sqlite.prepare('SELECT 1 FROM app_user WHERE username = ?').get(ADMIN.username),
    {
      timeoutMs: 20_000,
      what: "the cloud's admin at the edge",
    },
  );
  const edgeApi = new Client(edge.url, await loginAdmin(edge.url));
  let n = 0;
  const oneBatch = async (probe: Probe | undefined) => {
    n++;
    const arrived = held.holdNextBatch();
    await created(
      edgeApi.post('/api/movement', {
        yardId,
        direction: 'in',
        trailer: { number: `TRS${n}` },
        truck: { plate: `TRS-${n}`, plateRegion: 'TX' },
      }),
    );
    const deliver = await arrived;
    await quiet(cloud, edge);
    await deliver(probe);
  };
  return {
    orchestrator: 'shared/sync/link-receiver.ts',
    warmUp: () => oneBatch(undefined),
    run: (probe) => oneBatch(probe),
    async close() {
      await edge.close();
      await cloud.close();
      await broker.stop();
    },
  };
}

/** Lets the edge finish its side (its answer, its send) before the cloud's part is measured. */
async function quiet(..._apps: TestApp[]): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
}

/**
 * The cloud's transport, holding the next `up/changes` message it receives until the tracer hands
 * it over; the probe runs from that hand-over to the cloud's ack for it.
 */
class HoldingTransport {
  private waiting: ((deliver: (probe: Probe | undefined) => Promise<void>) => void) | undefined;
  private onAck: (() => void) | undefined;

  around(inner: SyncTransport): SyncTransport {
    const self = this;
    return {
      start: () => inner.start(),
      stop: () => inner.stop(),
      get connected() {
        return inner.connected;
      },
      publish(topic, payload, options) {
        if (self.onAck && topic.endsWith('/down/ack')) {
          const done = self.onAck;
          self.onAck = undefined;
          done();
        }
        return inner.publish(topic, payload, options);
      },
      onMessage: (listener: MessageListener) =>
        inner.onMessage((topic, payload, meta) => {
          const waiting = this.waiting;
          if (waiting && topic.endsWith('/up/changes')) {
            this.waiting = undefined;
            waiting((probe) => this.deliver(listener, probe, topic, payload, meta));
            return;
          }
          listener(topic, payload, meta);
        }),
      onConnect: (l) => inner.onConnect(l),
      onDisconnect: (l) => inner.onDisconnect(l),
    };
  }

  holdNextBatch(): Promise<(probe: Probe | undefined) => Promise<void>> {
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  private deliver(
    listener: MessageListener,
    probe: Probe | undefined,
    ...message: Parameters<MessageListener>
  ): Promise<void> {
    return new Promise((resolve) => {
      this.onAck = () => {
        probe?.stop();
        resolve();
      };
      probe?.start();
      listener(...message);
    });
  }
}
