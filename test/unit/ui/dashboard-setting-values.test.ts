import { describe, expect, it } from 'vitest';
import { fromText, kindOf, showValue, toText } from '../../../shared/ui/dashboard/admin/setting-values';

describe('setting values', () => {
  it('takes the kind of input from the default', () => {
    expect(kindOf(true)).toBe('boolean');
    expect(kindOf(120)).toBe('number');
    expect(kindOf(['image/png'])).toBe('list');
    expect(kindOf('Yard')).toBe('text');
  });

  it('shows values in words', () => {
    expect(showValue(false)).toBe('Off');
    expect(showValue(10_485_760)).toBe(new Intl.NumberFormat().format(10_485_760));
    expect(showValue(['image/png', 'application/pdf'])).toBe('image/png, application/pdf');
  });

  it('round-trips what is typed: lists one per line or by commas, numbers as numbers', () => {
    expect(fromText('list', toText(['a/b', 'c/d']) as string)).toEqual(['a/b', 'c/d']);
    expect(fromText('list', ' a/b, c/d \n')).toEqual(['a/b', 'c/d']);
    expect(fromText('number', ' 90 ')).toBe(90);
    expect(fromText('number', 'ninety')).toBe('ninety');
    expect(fromText('boolean', true)).toBe(true);
    expect(fromText('text', '  North yard ')).toBe('North yard');
  });
});
