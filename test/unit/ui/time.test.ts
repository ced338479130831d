import { describe, expect, it } from 'vitest';
import { linkText } from '../../../shared/ui/common/components/link-badge';
import { duration, yardTime } from '../../../shared/ui/common/time';

describe('times in the yard time zone', () => {
  it('shows the clock of the yard, not of the browser, across a DST change', () => {
    // 2026-03-08 is the spring-forward day in Chicago (02:00 CST -> 03:00 CDT):
    // 07:59Z is 01:59 CST (UTC-6), 08:30Z is 03:30 CDT (UTC-5).
    const now = Date.parse('2026-03-08T18:00:00Z');
    expect(yardTime('2026-03-08T07:59:00Z', 'America/Chicago', now)).toMatch(/01:59/);
    expect(yardTime('2026-03-08T08:30:00Z', 'America/Chicago', now)).toMatch(/03:30/);
    // The same instant in Berlin (UTC+1 in March before its own change) is 09:30.
    expect(yardTime('2026-03-08T08:30:00Z', 'Europe/Berlin', now)).toMatch(/09:30/);
  });

  it('adds the day when it is not today in the yard', () => {
    // 2026-11-23T23:30Z is already 24 Nov 12:30 in Auckland (UTC+13): "today" is the yard's day.
    const now = Date.parse('2026-11-23T23:40:00Z');
    expect(yardTime('2026-11-23T23:30:00Z', 'Pacific/Auckland', now)).toMatch(/^12:30|^\d\d:30/);
    expect(yardTime('2026-11-22T23:30:00Z', 'Pacific/Auckland', now)).toMatch(/23/);
    expect(yardTime(null, 'UTC')).toBe('');
    expect(yardTime('not a time', 'UTC')).toBe('');
  });

  it('says dwell as people do', () => {
    expect(duration(0)).toBe('0 min');
    expect(duration(59_999)).toBe('0 min');
    expect(duration(45 * 60_000)).toBe('45 min');
    expect(duration((3 * 60 + 20) * 60_000)).toBe('3 h 20 min');
    expect(duration(47 * 3_600_000 + 59 * 60_000)).toBe('47 h 59 min');
    expect(duration((2 * 24 + 4) * 3_600_000)).toBe('2 d 4 h');
    expect(duration(-5)).toBe('0 min');
  });
});

describe('the site link badge', () => {
  const base = {
    role: 'edge' as const,
    siteId: 'dal1',
    lastSeq: 10,
    ackedSeq: 8,
    deadLetters: 0,
    clockSkewMs: 0,
  };
  it('tells standalone, online with the queue, and offline since when', () => {
    expect(linkText({ ...base, mode: 'standalone', queued: 0 }, 'UTC').label).toBe('Standalone site');
    expect(linkText({ ...base, mode: 'linked', link: 'online', queued: 0 }, 'UTC')).toMatchObject({
      label: 'Cloud online',
      tone: 'ok',
    });
    expect(linkText({ ...base, mode: 'linked', link: 'online', queued: 1 }, 'UTC').label).toBe(
      'Cloud online · 1 change queued',
    );
    const offline = linkText(
      { ...base, mode: 'linked', link: 'offline', queued: 12, lastAckAt: new Date().toISOString() },
      'UTC',
    );
    expect(offline.tone).toBe('warn');
    expect(offline.label).toMatch(/^Cloud offline since .+ · 12 changes queued$/);
  });
});
