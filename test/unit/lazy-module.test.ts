import { describe, expect, it } from 'vitest';
import { lazyModule } from '../../shared/lazy-module.js';

describe('a library loaded on first use', () => {
  it('is loaded once, however many callers ask at once', async () => {
    let loads = 0;
    const load = lazyModule(async () => {
      loads += 1;
      await new Promise((r) => setTimeout(r, 5));
      return { name: 'pdf' };
    });
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(await load()).toBe(a);
    expect(loads).toBe(1);
  });

  it('is tried again by the next caller after a failed load', async () => {
    let loads = 0;
    const load = lazyModule(async () => {
      loads += 1;
      if (loads === 1) throw new Error('not installed');
      return 'ok';
    });
    await expect(load()).rejects.toThrow('not installed');
    expect(await load()).toBe('ok');
    expect(loads).toBe(2);
  });
});
