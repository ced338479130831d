import { describe, expect, it } from 'vitest';
import { HashGate } from '../../../shared/auth/hash-gate.js';
import { loadConfig } from '../../../shared/config.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('HashGate: a bound on concurrent password hashing', () => {
  it('runs `concurrency` at once, queues `queue` more, and refuses the rest at once with 503 server-busy', async () => {
    const gate = new HashGate(1, 2);
    const running: number[] = [];
    const jobs = [deferred(), deferred(), deferred()];
    const results = jobs.map((job, i) =>
      gate.run(async () => {
        running.push(i);
        await job.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(running).toEqual([0]);
    await expect(gate.run(async () => 99)).rejects.toMatchObject({
      status: 503,
      code: 'server-busy',
      extra: { retryAfterSec: 1 },
    });
    jobs[0]!.resolve();
    expect(await results[0]).toBe(0);
    // A place in the queue is free again.
    const next = gate.run(async () => 3);
    for (const job of jobs) job.resolve();
    expect(await Promise.all([...results, next])).toEqual([0, 1, 2, 3]);
  });

  it('with no queue, refuses only while every slot is busy', async () => {
    const gate = new HashGate(2, 0);
    const job = deferred();
    const a = gate.run(() => job.promise);
    const b = gate.run(() => job.promise);
    await expect(gate.run(async () => 1)).rejects.toMatchObject({ code: 'server-busy' });
    job.resolve();
    await Promise.all([a, b]);
    expect(await gate.run(async () => 2)).toBe(2);
  });
});

describe('login limit settings', () => {
  it('by default one address or one account gets 30 failed logins per 5 minutes, one pair 10', () => {
    const { auth } = loadConfig({});
    expect(auth).toMatchObject({
      loginAttemptsPerWindow: 10,
      loginAttemptsPerAddress: 30,
      loginAttemptsPerAccount: 30,
      loginWindowSec: 300,
      hashConcurrency: 2,
      hashQueue: 32,
    });
  });
});

describe('YARD_TRUST_PROXY is a number of proxies', () => {
  const trust = (value: string) => loadConfig({ YARD_TRUST_PROXY: value }).http.trustProxy;

  it('takes a hop count; true is one proxy, false none', () => {
    expect(loadConfig({}).http.trustProxy).toBe(0);
    expect(trust('2')).toBe(2);
    expect(trust('true')).toBe(1);
    expect(trust('false')).toBe(0);
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => trust('loopback')).toThrow(/YARD_TRUST_PROXY/);
    expect(() => trust('-1')).toThrow(/YARD_TRUST_PROXY/);
  });
});
