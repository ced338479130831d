import { describe, expect, it } from 'vitest';
import { ATTACHED, yardTime } from '../../../shared/modules/email/compose.js';
import { contactEmailOf, emailKindOf } from '../../../shared/modules/email/kinds.js';
import { smtpAddress, smtpHostPolicy } from '../../../shared/modules/email/smtp-policy.js';

describe('which appointment change is mailed (docs/configuration.md "Email to carriers")', () => {
  it('maps the history kinds a carrier is told of', () => {
    expect(emailKindOf('booked', null)).toBe('confirmation');
    expect(emailKindOf('rescheduled', '{"from":{},"to":{}}')).toBe('change');
    expect(emailKindOf('cancelled', null)).toBe('cancellation');
    expect(emailKindOf('no_show', null)).toBe('no_show');
    for (const gate of ['arrived', 'docked', 'completed', 'departed', 'no_show_undone']) {
      expect(emailKindOf(gate, null)).toBeNull();
    }
  });

  it('mails an edit only when it changed what the pass or the driver goes by', () => {
    expect(emailKindOf('edited', JSON.stringify({ fields: ['notes'] }))).toBeNull();
    expect(emailKindOf('edited', JSON.stringify({ fields: ['driverPhone', 'notes'] }))).toBeNull();
    expect(emailKindOf('edited', JSON.stringify({ fields: ['notes', 'refs'] }))).toBe('change');
    expect(emailKindOf('edited', JSON.stringify({ fields: ['trailerNumber'] }))).toBe('change');
    expect(emailKindOf('edited', null)).toBeNull();
    expect(emailKindOf('edited', 'not json')).toBeNull();
  });

  it('reads the contact email from the carrier’s contact', () => {
    expect(contactEmailOf('{"name":"Desk","email":"d@x.example"}')).toBe('d@x.example');
    expect(contactEmailOf('{"name":"Desk","phone":"+1"}')).toBeNull();
    expect(contactEmailOf(null)).toBeNull();
    expect(contactEmailOf('')).toBeNull();
    expect(contactEmailOf('{broken')).toBeNull();
  });

  it('gives a cancelled or missed appointment no pass to show at the gate', () => {
    expect(ATTACHED.confirmation).toEqual(['pdf', 'ics']);
    expect(ATTACHED.change).toEqual(['pdf', 'ics']);
    expect(ATTACHED.cancellation).toEqual(['ics']);
    expect(ATTACHED.no_show).toEqual([]);
  });

  it('writes times on the yard’s wall clock, DST included', () => {
    expect(yardTime('2026-03-08T08:00:00-05:00', 'America/Chicago')).toBe('Sun 8 Mar 2026, 08:00 CDT');
    expect(yardTime('2026-03-07T08:00:00-06:00', 'America/Chicago')).toBe('Sat 7 Mar 2026, 08:00 CST');
  });
});

describe('the SMTP address policy (docs/security.md "SMTP")', () => {
  const strict = smtpHostPolicy({ allowLocalSmtp: false });
  const local = smtpHostPolicy({ allowLocalSmtp: true });

  it('allows private relays, refuses the box itself and link-local unless allowed', async () => {
    expect(await smtpAddress('10.0.0.5', strict)).toBe('10.0.0.5');
    expect(await smtpAddress('192.168.1.20', strict)).toBe('192.168.1.20');
    for (const host of ['127.0.0.1', '169.254.169.254', '::1', '[::1]', '0.0.0.0']) {
      await expect(smtpAddress(host, strict), host).rejects.toThrow(/email.allowLocalSmtp/);
    }
    expect(await smtpAddress('127.0.0.1', local)).toBe('127.0.0.1');
    expect(await smtpAddress('[::1]', local)).toBe('::1');
  });

  it('refuses multicast and broadcast always, and a name that resolves to a refused address', async () => {
    await expect(smtpAddress('224.0.0.1', local)).rejects.toThrow(/not a single host/);
    await expect(smtpAddress('255.255.255.255', local)).rejects.toThrow(/not a single host/);
    await expect(smtpAddress('localhost', strict)).rejects.toThrow(/refused/);
    expect(['127.0.0.1', '::1']).toContain(await smtpAddress('localhost', local));
  });
});
