import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { GatePass } from '../../../shared/modules/appointments/pass/index.js';
import { passOf } from './pass-fixture.js';

/** RFC 5545 content lines, unfolded (a line starting with a space continues the previous one). */
function parseIcs(text: string): { method?: string; event: Record<string, string> } {
  const lines = text.replace(/\r\n[ \t]/g, '').split('\r\n');
  const event: Record<string, string> = {};
  let method: string | undefined;
  let inEvent = false;
  for (const line of lines) {
    if (line === 'BEGIN:VEVENT') inEvent = true;
    else if (line === 'END:VEVENT') inEvent = false;
    else {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).split(';')[0] as string;
      const value = line.slice(colon + 1);
      if (inEvent) event[name] = value;
      else if (name === 'METHOD') method = value;
    }
  }
  return method === undefined ? { event } : { method, event };
}

const unescapeText = (v: string) => v.replace(/\\n/g, '\n').replace(/\\([,;\\])/g, '$1');

/** The .ics of the pass (pass/ics.ts): one event a calendar updates and cancels in place. */
describe('gate pass calendar event', () => {
  const clock = new ManualClock(Date.parse('2026-03-02T12:00:00Z'));
  const passes = new GatePass({ clock });

  it('has a stable UID, the version as SEQUENCE and UTC times across the DST change', async () => {
    const out = await passes.render(passOf(), 'ics');
    expect(out.contentType).toBe('text/calendar; charset=utf-8; method=PUBLISH');
    expect(out.filename).toBe('gate-pass-K7M2Q9TX.ics');
    const { method, event } = parseIcs(out.body as string);
    expect(method).toBe('PUBLISH');
    expect(event.UID).toBe('0194f0c2-7d1e-7a55-9c1e-3f1b2a4c5d6e@yard-service');
    expect(event.SEQUENCE).toBe('3');
    // 01:30 CST = 07:30Z; 03:30 CDT = 08:30Z: one hour, as the yard's clock skips 02:00-03:00.
    expect(event.DTSTART).toBe('20260308T073000Z');
    expect(event.DTEND).toBe('20260308T083000Z');
    expect(event.DTSTAMP).toBe('20260302T120000Z');
    expect(event.STATUS).toBe('CONFIRMED');
    expect(unescapeText(event.LOCATION ?? '')).toBe('Łódź North <DC>, Door 4');
    expect(unescapeText(event.SUMMARY ?? '')).toBe('Dock appointment K7M2Q9TX at Łódź North <DC>');
    const description = unescapeText(event.DESCRIPTION ?? '');
    expect(description).toContain('Code: K7M2Q9TX');
    expect(description).toContain('When: Sun 8 Mar 2026, 01:30 (UTC-06:00) - 03:30 (UTC-05:00)');
    expect(description).toContain('Refs: PO-1, BOL-7');
  });

  it('a cancellation is METHOD:CANCEL and STATUS:CANCELLED of the same UID, with a higher SEQUENCE', async () => {
    const out = await passes.render(
      passOf({
        status: 'cancelled',
        version: 4,
        cancelledAt: '2026-03-05T09:00:00-06:00',
        cancelReason: 'load not ready',
      }),
      'ics',
    );
    expect(out.contentType).toBe('text/calendar; charset=utf-8; method=CANCEL');
    const { method, event } = parseIcs(out.body as string);
    expect(method).toBe('CANCEL');
    expect(event.STATUS).toBe('CANCELLED');
    expect(event.UID).toBe('0194f0c2-7d1e-7a55-9c1e-3f1b2a4c5d6e@yard-service');
    expect(event.SEQUENCE).toBe('4');
    expect(unescapeText(event.DESCRIPTION ?? '')).toContain('Reason: load not ready');
  });
});
