import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { SharedAnswers } from '../../shared/http/shared-answers.js';

describe('figure answers shared by polling dashboards', () => {
  const setup = () => {
    const clock = new ManualClock(Date.parse('2026-11-25T12:00:00Z'));
    const answers = new SharedAnswers(clock);
    let builds = 0;
    const build = async () => ({ build: ++builds });
    return { clock, answers, build, builds: () => builds };
  };

  it('builds once for requests within a second and without a change, and the text is the JSON', async () => {
    const { answers, build, builds, clock } = setup();
    const [a, b] = await Promise.all([answers.answer('k', build), answers.answer('k', build)]);
    clock.advance(999);
    const c = await answers.answer('k', build);
    expect(builds()).toBe(1);
    expect([a.text, b.text, c.text]).toEqual(['{"build":1}', '{"build":1}', '{"build":1}']);
  });

  it('builds again after a rollup changed, after a second, and for another key', async () => {
    const { answers, build, builds, clock } = setup();
    await answers.answer('k', build);
    answers.changed();
    expect((await answers.answer('k', build)).text).toBe('{"build":2}');
    clock.advance(1_000);
    expect((await answers.answer('k', build)).text).toBe('{"build":3}');
    expect((await answers.answer('other', build)).text).toBe('{"build":4}');
    expect(builds()).toBe(4);
  });

  it('does not share a refusal: the next request builds again', async () => {
    const { answers } = setup();
    await expect(answers.answer('k', () => Promise.reject(new Error('no such yard')))).rejects.toThrow(
      'no such yard',
    );
    expect((await answers.answer('k', async () => ({ ok: true }))).text).toBe('{"ok":true}');
  });
});
