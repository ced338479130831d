import { describe, expect, it } from 'vitest';
import { AckWait } from '../../../shared/sync/ack-wait.js';

describe('the wait for an ack (docs/sync.md "Apply, ack, resume")', () => {
  it('is the configured ack timeout while the peer answers', () => {
    const wait = new AckWait(() => 10_000);
    expect(wait.ms).toBe(10_000);
    wait.progressed();
    expect(wait.ms).toBe(10_000);
  });

  it('doubles after each wait that ended without an ack, up to 8 times the ack timeout', () => {
    const wait = new AckWait(() => 10_000);
    const waits = [];
    for (let i = 0; i < 6; i++) {
      waits.push(wait.ms);
      wait.timedOut();
    }
    expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 80_000, 80_000]);
  });

  it('is back to the ack timeout as soon as an ack moves the position', () => {
    const wait = new AckWait(() => 10_000);
    wait.timedOut();
    wait.timedOut();
    expect(wait.ms).toBe(40_000);
    wait.progressed();
    expect(wait.ms).toBe(10_000);
  });

  it('follows the configured ack timeout when it changes', () => {
    let configured = 10_000;
    const wait = new AckWait(() => configured);
    wait.timedOut();
    configured = 3_000;
    expect(wait.ms).toBe(6_000);
  });
});
