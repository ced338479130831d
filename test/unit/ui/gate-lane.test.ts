import { describe, expect, it } from 'vitest';
import { type GateFacts, laneView, retryAtFrom } from '../../../shared/ui/gate/lanes/gate-state';

const base: GateFacts = { hasRelay: true, state: 'ok', driver: 'serial-lcus', busy: false, mayOpen: true };
const now = Date.parse('2026-03-01T12:00:00Z');
const clock = (at: number) => new Date(at).toISOString().slice(11, 19);

describe('a lane: relay badge and the Open button', () => {
  it('an idle or ok relay may be opened', () => {
    expect(laneView(base, now, clock)).toEqual({
      badge: { label: 'Relay ok', tone: 'ok' },
      open: { enabled: true, reason: null },
    });
    expect(laneView({ ...base, state: 'idle' }, now, clock).open.enabled).toBe(true);
  });

  it('a simulated relay says so and may be opened', () => {
    const v = laneView({ ...base, driver: 'simulated', state: 'simulated' }, now, clock);
    expect(v.badge).toEqual({ label: 'Relay simulated', tone: 'warn' });
    expect(v.open.enabled).toBe(true);
  });

  it('a faulted relay disables Open and says what the driver reported and what to do', () => {
    const v = laneView({ ...base, state: 'fault', error: 'port /dev/ttyUSB0 gone' }, now, clock);
    expect(v.badge.tone).toBe('bad');
    expect(v.open.enabled).toBe(false);
    expect(v.open.reason).toContain('port /dev/ttyUSB0 gone');
    expect(v.open.reason).toContain('by hand');
  });

  it('a manual gate has no Open', () => {
    const v = laneView({ ...base, hasRelay: false, state: undefined }, now, clock);
    expect(v.badge.label).toContain('manual');
    expect(v.open).toEqual({ enabled: false, reason: 'This gate has no relay: open it by hand.' });
  });

  it('a rate-limited gate says when it can be tried again, and is enabled after that', () => {
    const retryAt = retryAtFrom(42, now);
    expect(retryAt).toBe(now + 42_000);
    const v = laneView({ ...base, retryAt }, now, clock);
    expect(v.open.enabled).toBe(false);
    expect(v.open.reason).toContain('12:00:42');
    expect(laneView({ ...base, retryAt }, retryAt + 1, clock).open.enabled).toBe(true);
    // No usable Retry-After: a minute, the limit's window.
    expect(retryAtFrom(undefined, now)).toBe(now + 60_000);
  });

  it('a busy gate and a role that may not open are disabled with their reason', () => {
    expect(laneView({ ...base, busy: true }, now, clock)).toMatchObject({
      badge: { label: 'Opening…' },
      open: { enabled: false, reason: 'The gate is opening now.' },
    });
    expect(laneView({ ...base, mayOpen: false }, now, clock).open.reason).toMatch(/role/);
  });
});
