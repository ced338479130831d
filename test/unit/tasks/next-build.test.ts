import { describe, expect, it } from 'vitest';
import { NextBuild } from '../../../shared/modules/tasks/next-build.js';

/** A build that ends when told, numbered in the order builds started. */
function builds() {
  const started: Array<{ n: number; end: (v?: string) => void; fail: (e: Error) => void }> = [];
  const build = () =>
    new Promise<string>((resolve, reject) => {
      const n = started.length + 1;
      started.push({ n, end: (v) => resolve(v ?? `build ${n}`), fail: reject });
    });
  return { started, build };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('NextBuild: shared builds, never from before the request', () => {
  it('a request with no build under way starts one and gets its answer', async () => {
    const shared = new NextBuild<string>();
    const { started, build } = builds();
    const answer = shared.get('all', build);
    await tick();
    expect(started).toHaveLength(1);
    started[0]!.end();
    await expect(answer).resolves.toBe('build 1');
  });

  it('requests arriving during a build share the next one, started when it ends', async () => {
    const shared = new NextBuild<string>();
    const { started, build } = builds();
    const first = shared.get('all', build);
    await tick();
    const later = Array.from({ length: 9 }, () => shared.get('all', build));
    await tick();
    expect(started).toHaveLength(1); // the next build waits for the one under way
    started[0]!.end();
    await expect(first).resolves.toBe('build 1');
    await tick();
    expect(started).toHaveLength(2);
    started[1]!.end();
    expect(await Promise.all(later)).toEqual(Array(9).fill('build 2'));
    // Nothing under way any more: the next request starts a build of its own.
    const again = shared.get('all', build);
    await tick();
    expect(started).toHaveLength(3);
    started[2]!.end();
    await expect(again).resolves.toBe('build 3');
  });

  it('a request arriving while the next build runs waits for the one after it', async () => {
    const shared = new NextBuild<string>();
    const { started, build } = builds();
    void shared.get('all', build);
    await tick();
    const second = shared.get('all', build);
    started[0]!.end();
    await tick();
    expect(started).toHaveLength(2); // build 2 runs now
    const third = shared.get('all', build);
    started[1]!.end();
    await expect(second).resolves.toBe('build 2');
    await tick();
    started[2]!.end();
    await expect(third).resolves.toBe('build 3');
  });

  it('a failed build fails the requests that shared it, and the next request builds again', async () => {
    const shared = new NextBuild<string>();
    const { started, build } = builds();
    const first = shared.get('all', build);
    await tick();
    const waiting = shared.get('all', build);
    started[0]!.fail(new Error('read failed'));
    await expect(first).rejects.toThrow('read failed');
    await tick();
    started[1]!.fail(new Error('read failed again'));
    await expect(waiting).rejects.toThrow('read failed again');
    const after = shared.get('all', build);
    await tick();
    started[2]!.end();
    await expect(after).resolves.toBe('build 3');
  });

  it('keys do not share: another scope builds at once', async () => {
    const shared = new NextBuild<string>();
    const { started, build } = builds();
    const all = shared.get('*', build);
    const one = shared.get('yard-1', build);
    await tick();
    expect(started).toHaveLength(2);
    started[1]!.end('yard 1 only');
    started[0]!.end('every yard');
    await expect(one).resolves.toBe('yard 1 only');
    await expect(all).resolves.toBe('every yard');
  });
});
