import { describe, expect, it } from 'vitest';
import { fileNameOf } from '../../../shared/ui/dashboard/billing/download-name';
import { type FieldSpec, toBody, toText } from '../../../shared/ui/dashboard/billing/form-values';
import { minorDigits, moneyInput, parseMoney, percentToBp } from '../../../shared/ui/dashboard/billing/money';
import { currentPeriod, recentPeriods, shiftPeriod } from '../../../shared/ui/dashboard/billing/period';

describe('money fields: what a clerk types <-> integer minor units', () => {
  it('knows each currency’s minor digits', () => {
    expect([minorDigits('USD'), minorDigits('JPY'), minorDigits('KWD')]).toEqual([2, 0, 3]);
  });

  it('parses exactly, with grouping, never rounding a decimal too many', () => {
    expect(parseMoney('150', 'USD')).toEqual({ ok: true, minor: 15_000 });
    expect(parseMoney('1,250.5', 'USD')).toEqual({ ok: true, minor: 125_050 });
    expect(parseMoney('0.29', 'USD')).toEqual({ ok: true, minor: 29 }); // 0.29 * 100 is 28.999… as a float
    expect(parseMoney('1500', 'JPY')).toEqual({ ok: true, minor: 1500 });
    expect(parseMoney('1.5', 'JPY')).toEqual({ ok: false, message: 'JPY has no decimals.' });
    expect(parseMoney('25.005', 'USD')).toEqual({ ok: false, message: 'At most 2 decimals in USD.' });
    expect(parseMoney('-25', 'USD')).toEqual({ ok: false, message: 'Must not be negative.' });
    expect(parseMoney('-25.00', 'USD', { signed: true })).toEqual({ ok: true, minor: -2500 });
    expect(parseMoney('12,5 €', 'EUR').ok).toBe(false);
    expect(parseMoney('', 'USD').ok).toBe(false);
    expect(parseMoney('99999999999999999', 'USD')).toEqual({
      ok: false,
      message: 'That amount is too large.',
    });
  });

  it('writes minor units back as the field’s text', () => {
    expect(moneyInput(15_000, 'USD')).toBe('150.00');
    expect(moneyInput(5, 'USD')).toBe('0.05');
    expect(moneyInput(-2500, 'USD')).toBe('-25.00');
    expect(moneyInput(1500, 'JPY')).toBe('1500');
    expect(moneyInput(1234, 'KWD')).toBe('1.234');
    expect(moneyInput(null, 'USD')).toBe('');
  });

  it('takes a tax rate as a percentage into basis points', () => {
    expect(percentToBp('8.25')).toBe(825);
    expect(percentToBp('8.5')).toBe(850);
    expect(percentToBp('20')).toBe(2000);
    expect(percentToBp('8.255')).toBeNull();
    expect(percentToBp('-1')).toBeNull();
  });
});

describe('a billing form as the API body', () => {
  const specs: FieldSpec[] = [
    { name: 'moveFee', label: 'Move fee', kind: 'money' },
    { name: 'bookedSpaces', label: 'Booked spaces', kind: 'count' },
    { name: 'taxRateBp', label: 'Tax', kind: 'percent' },
    { name: 'billToName', label: 'Bill-to', kind: 'text' },
  ];

  it('a carrier config: an empty rate is null (inherit the yard’s)', () => {
    const { body, errors } = toBody(
      specs,
      { moveFee: '', bookedSpaces: '4', taxRateBp: '8.25', billToName: ' AP ' },
      'USD',
      null,
    );
    expect(errors).toEqual({});
    expect(body).toEqual({ moveFee: null, bookedSpaces: 4, taxRateBp: 825, billToName: 'AP' });
  });

  it('a yard config: an empty rate is left out (the API’s default), empty text is null', () => {
    const { body } = toBody(
      specs,
      { moveFee: '', bookedSpaces: '', taxRateBp: '0', billToName: '' },
      'USD',
      undefined,
    );
    expect(body).toEqual({ taxRateBp: 0, billToName: null });
  });

  it('says what is wrong per field and sends nothing for it', () => {
    const { body, errors } = toBody(
      [...specs, { name: 'currency', label: 'Currency', kind: 'text', required: true }],
      { moveFee: '1.234', bookedSpaces: '2.5', taxRateBp: 'x', billToName: 'AP', currency: '' },
      'USD',
      null,
    );
    expect(Object.keys(errors).sort()).toEqual(['bookedSpaces', 'currency', 'moveFee', 'taxRateBp']);
    expect(body).toEqual({ billToName: 'AP' });
  });

  it('shows a record’s values in the fields (null: empty, inherits)', () => {
    expect(toText(specs[0] as FieldSpec, 1250, 'USD')).toBe('12.50');
    expect(toText(specs[0] as FieldSpec, null, 'USD')).toBe('');
    expect(toText(specs[2] as FieldSpec, 825, 'USD')).toBe('8.25');
  });
});

describe('billing periods in the yard’s time zone', () => {
  it('the ongoing month is the yard’s, not UTC’s', () => {
    const at = Date.parse('2026-11-01T03:00:00Z'); // 31 Oct, 22:00 in Chicago; 1 Nov, 12:00 in Tokyo
    expect(currentPeriod('America/Chicago', at)).toBe('2026-10');
    expect(currentPeriod('Asia/Tokyo', at)).toBe('2026-11');
  });

  it('shifts across years and lists the ongoing month first', () => {
    expect(shiftPeriod('2026-01', -1)).toBe('2025-12');
    expect(shiftPeriod('2025-12', 13)).toBe('2027-01');
    expect(recentPeriods('UTC', 3, Date.parse('2026-02-10T00:00:00Z'))).toEqual([
      '2026-02',
      '2026-01',
      '2025-12',
    ]);
  });
});

describe('the server’s file name of a download', () => {
  it('reads Content-Disposition, the UTF-8 form first, else falls back', () => {
    expect(fileNameOf('attachment; filename="DAL1-202610-LSLG.pdf"', 'x.pdf')).toBe('DAL1-202610-LSLG.pdf');
    expect(fileNameOf('attachment; filename=invoices.csv', 'x')).toBe('invoices.csv');
    expect(fileNameOf(`attachment; filename="a.csv"; filename*=UTF-8''Rechnung%20%C3%A4.csv`, 'x')).toBe(
      'Rechnung ä.csv',
    );
    expect(fileNameOf(null, 'DAL1.pdf')).toBe('DAL1.pdf');
    expect(fileNameOf('attachment', 'DAL1.pdf')).toBe('DAL1.pdf');
  });
});
