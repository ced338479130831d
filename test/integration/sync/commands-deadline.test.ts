import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedBroker, startEmbeddedBroker } from '../../../cloud/broker.js';
import { newId } from '../../../shared/ids.js';
import { silentLogger } from '../../../shared/log.js';
import { type Command, CommandResult, decode, topicsFor } from '../../../shared/sync/protocol.js';
import { rows } from '../../helpers/http.js';
import {
  brokerHasClient,
  type Cloud,
  createGate,
  type Edge,
  mqttTransport,
  startCloud,
  startEdge,
  TransportLink,
  waitFor,
} from './commands-fixture.js';

/**
 * NEVER LATE (edge/sync/command-handler.ts): commands crafted by a stand-in cloud on the real broker,
 * with send times and deadlines on a cloud clock that is minutes off the edge's. A command past its
 * deadline is answered command-expired and not run; a timely one runs whatever the skew; an id runs
 * once. And the broker half of the rule: Aedes keeps no QoS 0 message for an offline session.
 */

const SITE = 'site-skew';
const TTL_MS = 10_000;
const MINUTE = 60_000;

let broker: EmbeddedBroker;
let cloud: Cloud;
let edge: Edge;
let fakeCloud: TransportLink;
let gateId: string;
const results = new Map<string, CommandResult>();
const topics = topicsFor(SITE);

function actuate(cloudNow: number, extra: Partial<Command> = {}): Command {
  return {
    v: 1,
    id: newId(),
    kind: 'actuate',
    args: { gateId, reason: 'skew test', requestedBy: { id: 'u-1', name: 'dispatcher', kind: 'user' } },
    sentAt: cloudNow,
    deadline: cloudNow + TTL_MS,
    ...extra,
  };
}

/** Publishes a command as the cloud does (QoS 0) and waits for the edge's answer. */
async function ask(command: Command): Promise<CommandResult> {
  await fakeCloud.transport.publish(topics.downCmd, JSON.stringify(command), { qos: 0 });
  return waitFor(() => results.get(command.id), { what: `the answer to ${command.id}` });
}

const pulses = () => edge.app.gates.history.length;
const audited = () => rows(edge.app.db, 'SELECT count(*) AS n FROM gate_actuation')[0].n as number;

beforeAll(async () => {
  broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
  cloud = await startCloud(broker.url);
  edge = await startEdge(broker.url, cloud, SITE);
  gateId = await createGate(edge, cloud, 'Skew gate');
  fakeCloud = new TransportLink(
    mqttTransport(broker.url, 'fake-cloud', [topics.upCmdResult], silentLogger()),
  );
  fakeCloud.transport.onMessage((topic, payload) => {
    const result = topic === topics.upCmdResult ? decode(CommandResult, payload) : undefined;
    if (result) results.set(result.id, result);
  });
  await fakeCloud.start();
});

afterAll(async () => {
  await fakeCloud?.stop();
  await edge?.app.close();
  await cloud?.app.close();
  await broker?.stop();
});

describe('a command is never run late', () => {
  it('the first command an edge sees, sent an hour ago, is answered command-expired and not run', async () => {
    const hourAgo = Date.now() - 60 * MINUTE;
    const answer = await ask(actuate(hourAgo));
    expect(answer).toMatchObject({ ok: false, error: { status: 504, code: 'command-expired' } });
    expect(answer.error?.detail).toContain('will not run later');
    expect(pulses()).toBe(0);
    expect(audited()).toBe(0);
  });

  it('an edge clock 3 minutes ahead of the cloud still runs a timely command', async () => {
    const answer = await ask(actuate(Date.now() - 3 * MINUTE));
    expect(answer).toMatchObject({
      ok: true,
      result: { gateId, requestedVia: 'cloud', requestedBy: 'dispatcher' },
    });
    expect(pulses()).toBe(1);
  });

  it('an edge clock 3 minutes behind the cloud runs a timely command', async () => {
    const answer = await ask(actuate(Date.now() + 3 * MINUTE));
    expect(answer.ok).toBe(true);
    expect(pulses()).toBe(2);
  });

  it('a command held up past its deadline is refused although the slow edge clock says it is in time', async () => {
    // The cloud is 3 minutes ahead (as in the previous command); this one was sent 30 s ago with a
    // 10 s budget. By the edge's wall clock its deadline is still minutes away.
    const cloudNow = Date.now() + 3 * MINUTE;
    const command = actuate(cloudNow - 30_000);
    expect(Date.now()).toBeLessThan(command.deadline);
    const answer = await ask(command);
    expect(answer).toMatchObject({ ok: false, error: { status: 504, code: 'command-expired' } });
    expect(answer.error?.detail).toMatch(/\(\d+ s late\)/);
    expect(pulses()).toBe(2);
    expect(audited()).toBe(2);
    expect(edge.handler.stats.expired).toBe(2);
  });

  it('a command id runs at most once', async () => {
    const command = actuate(Date.now() + 3 * MINUTE);
    expect((await ask(command)).ok).toBe(true);
    const duplicates = edge.handler.stats.duplicates;
    await fakeCloud.transport.publish(topics.downCmd, JSON.stringify(command), { qos: 0 });
    await waitFor(() => edge.handler.stats.duplicates === duplicates + 1, {
      what: 'the duplicate to arrive',
    });
    expect(pulses()).toBe(3);
    expect(audited()).toBe(3);
  });

  it('bad arguments are 400 validation-failed and an unknown gate 404, nothing run', async () => {
    const bad = await ask(actuate(Date.now() + 3 * MINUTE, { args: { gate: 'x' } }));
    expect(bad).toMatchObject({ ok: false, error: { status: 400, code: 'validation-failed' } });
    expect(bad.error?.detail).toContain('gateId');
    const unknown = actuate(Date.now() + 3 * MINUTE);
    unknown.args = { ...unknown.args, gateId: newId() };
    expect(await ask(unknown)).toMatchObject({ ok: false, error: { status: 404, code: 'not-found' } });
    expect(pulses()).toBe(3);
  });
});

describe('commands the cloud never sends are refused and leave no trace', () => {
  it('a deadline a day after the send time is refused command-invalid, not run', async () => {
    const before = pulses();
    const now = Date.now();
    const answer = await ask(actuate(now, { deadline: now + 24 * 60 * MINUTE }));
    expect(answer).toMatchObject({ ok: false, error: { status: 400, code: 'command-invalid' } });
    expect(pulses()).toBe(before);
  });

  it('a command sent a year in the future is refused clock-skew; real commands still run after it', async () => {
    const before = pulses();
    const yearAhead = Date.now() + 365 * 24 * 60 * MINUTE;
    const answer = await ask(actuate(yearAhead));
    expect(answer).toMatchObject({ ok: false, error: { status: 503, code: 'clock-skew' } });
    expect(answer.error?.detail).toMatch(/NTP/);
    expect(pulses()).toBe(before);
    // It did not become the edge's idea of the cloud's clock: a timely command from the stand-in
    // cloud (3 minutes ahead, as above) is not "late".
    const timely = await ask(actuate(Date.now() + 3 * MINUTE));
    expect(timely).toMatchObject({ ok: true, result: { gateId } });
    expect(pulses()).toBe(before + 1);
  });

  it('a retained command is not run when the broker replays it on (re)subscribing', async () => {
    const before = pulses();
    const refused = edge.handler.stats.refused;
    await edge.link.stop();
    const command = actuate(Date.now() + 3 * MINUTE);
    await fakeCloud.transport.publish(topics.downCmd, JSON.stringify(command), { qos: 1, retain: true });
    try {
      await edge.link.start();
      // Refused (counted), or run and answered (what an edge without the rule does).
      await waitFor(() => edge.handler.stats.refused > refused || results.has(command.id), {
        what: 'the replayed command',
      });
      expect(pulses()).toBe(before);
      expect(results.has(command.id)).toBe(false);
    } finally {
      await fakeCloud.transport.publish(topics.downCmd, '', { qos: 1, retain: true });
    }
  });
});

describe('the broker keeps no QoS 0 message for an offline persistent session (Aedes)', () => {
  it('after a reconnect the QoS 1 message sent while away arrives, the QoS 0 one sent before it does not', async () => {
    const got: string[] = [];
    const away = new TransportLink(mqttTransport(broker.url, 'away-client', ['probe/#'], silentLogger()));
    away.transport.onMessage((_topic, payload) => got.push(payload.toString()));
    await away.start();
    await away.stop();
    await waitFor(() => !brokerHasClient(broker, 'away-client'), {
      what: 'the broker to drop the client',
    });
    await fakeCloud.transport.publish('probe/cmd', 'qos0', { qos: 0 });
    await fakeCloud.transport.publish('probe/cmd', 'qos1', { qos: 1 });
    try {
      await away.start();
      await waitFor(() => got.includes('qos1'), { what: 'the stored QoS 1 message' });
      expect(got).toEqual(['qos1']);
    } finally {
      await away.stop();
    }
  });
});
