import { describe, expect, it } from 'vitest';
import { linkText } from '../../../shared/ui/common/components/link-badge';
import { yardTime } from '../../../shared/ui/common/time';

const linked = {
  mode: 'linked' as const,
  role: 'edge' as const,
  siteId: 'site-a',
  lastSeq: 40,
  ackedSeq: 28,
  queued: 12,
  deadLetters: 0,
  clockSkewMs: 0,
  link: 'online' as const,
  linkSince: null,
  lastAckAt: null,
  appliedRemoteSeq: 3,
  pending: 0,
};

describe('the link badge', () => {
  it('offline: says since when the link is down (linkSince), in the yard zone, and what is queued', () => {
    const text = linkText(
      { ...linked, link: 'offline', linkSince: '2026-03-01T13:05:00Z', lastAckAt: '2026-03-01T12:00:00Z' },
      'Europe/Berlin',
    );
    const since = yardTime('2026-03-01T13:05:00Z', 'Europe/Berlin');
    expect(since).toMatch(/\b0?2:05|14:05/);
    expect(text.label).toBe(`Cloud offline since ${since} · 12 changes queued`);
    expect(text.tone).toBe('warn');
  });

  it('offline since before this start: shows the last contact instead of a made-up time', () => {
    const text = linkText(
      { ...linked, link: 'offline', linkSince: null, lastAckAt: '2026-03-01T12:00:00Z' },
      'Europe/Berlin',
    );
    const last = yardTime('2026-03-01T12:00:00Z', 'Europe/Berlin');
    expect(text.label).toBe(`Cloud offline (last contact ${last}) · 12 changes queued`);
  });

  it('online and standalone', () => {
    expect(linkText({ ...linked, link: 'online', queued: 0 }, 'UTC').label).toBe('Cloud online');
    const { link: _l, linkSince: _s, lastAckAt: _a, appliedRemoteSeq: _r, pending: _p, ...base } = linked;
    expect(linkText({ ...base, mode: 'standalone' }, 'UTC').label).toBe('Standalone site');
  });
});
