import { describe, expect, it } from 'vitest';
import { yardDateTime } from '../../../shared/ui/common/time';

describe('yardDateTime', () => {
  it('formats a full date and time with the zone name (Intl refuses dateStyle with timeZoneName)', () => {
    const text = yardDateTime('2026-11-23T20:05:00Z', 'America/Chicago');
    expect(text).toMatch(/2026/);
    expect(text).toMatch(/02:05|2:05/);
    expect(text).toMatch(/CST|GMT-6/);
  });
});
