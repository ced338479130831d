import { describe, expect, it } from 'vitest';
import { type Component, Lifecycle, StartError } from '../../shared/lifecycle.js';

/** Components that write what happens to them into one shared list. */
function recorder() {
  const events: string[] = [];
  const component = (name: string, fail: { start?: Error; stop?: Error } = {}): Component => ({
    name,
    start: async () => {
      events.push(`start ${name}`);
      if (fail.start) throw fail.start;
    },
    stop: async () => {
      events.push(`stop ${name}`);
      if (fail.stop) throw fail.stop;
    },
  });
  return { events, component };
}

describe('the start/stop sequence', () => {
  it('starts components in order and stops them in reverse', async () => {
    const { events, component } = recorder();
    const sequence = new Lifecycle();
    await sequence.start([component('database'), component('relays'), component('app'), component('http')]);
    await sequence.stop();
    expect(events).toEqual([
      'start database',
      'start relays',
      'start app',
      'start http',
      'stop http',
      'stop app',
      'stop relays',
      'stop database',
    ]);
  });

  it('a component that fails to start stops those already started, then the error names it', async () => {
    const { events, component } = recorder();
    const sequence = new Lifecycle();
    const inUse = Object.assign(new Error('listen EADDRINUSE 127.0.0.1:8080'), { code: 'EADDRINUSE' });
    const started = sequence.start([
      component('database'),
      component('broker'),
      component('http', { start: inUse }),
    ]);
    const err = await started.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartError);
    expect((err as StartError).message).toBe('http did not start: listen EADDRINUSE 127.0.0.1:8080');
    expect((err as StartError).component).toBe('http');
    expect((err as StartError).code).toBe('EADDRINUSE');
    expect((err as StartError).cause).toBe(inUse);
    // The failed one is not stopped (it did not start); nothing after it is started.
    expect(events).toEqual(['start database', 'start broker', 'start http', 'stop broker', 'stop database']);
  });

  it('a stop that fails still stops the rest (relays go safe), then rejects with the first failure', async () => {
    const { events, component } = recorder();
    const sequence = new Lifecycle();
    await sequence.start([
      component('relays'),
      component('app', { stop: new Error('flush failed') }),
      component('http'),
    ]);
    await expect(sequence.stop()).rejects.toThrow('app did not stop cleanly: flush failed');
    expect(events.slice(3)).toEqual(['stop http', 'stop app', 'stop relays']);
  });

  it('stops once however often stop() is called; nothing starts after a stop', async () => {
    const { events, component } = recorder();
    const sequence = new Lifecycle();
    await sequence.startNext(component('database'));
    await Promise.all([sequence.stop(), sequence.stop()]);
    await sequence.stop();
    expect(events).toEqual(['start database', 'stop database']);
    await expect(sequence.startNext(component('late'))).rejects.toThrow(
      'late did not start: the process is stopping',
    );
    expect(events).toEqual(['start database', 'stop database']);
  });

  it('startPart adds something that brings its own stop (a started role) to the sequence', async () => {
    const { events, component } = recorder();
    const sequence = new Lifecycle();
    const cloud = await sequence.startPart('cloud', async () => ({
      url: 'http://cloud',
      stop: async () => {
        events.push('stop cloud');
      },
    }));
    expect(cloud.url).toBe('http://cloud');
    await sequence.startNext(component('edge'));
    await sequence.stop();
    expect(events).toEqual(['start edge', 'stop edge', 'stop cloud']);
  });
});
