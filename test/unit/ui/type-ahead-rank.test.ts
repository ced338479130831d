import { describe, expect, it } from 'vitest';
import {
  compactCode,
  MATCH,
  matchScore,
  rankCarriers,
  rankDrivers,
  rankTrailers,
} from '../../../shared/ui/common/type-ahead-rank';

describe('type-ahead ranking', () => {
  it('scores exact > prefix > word prefix > contains, case-insensitively', () => {
    expect(matchScore('Lone Star Logistics', 'lone star logistics')).toBe(MATCH.exact);
    expect(matchScore('Lone Star Logistics', 'LONE')).toBe(MATCH.prefix);
    expect(matchScore('Lone Star Logistics', 'star')).toBe(MATCH.wordPrefix);
    expect(matchScore('Lone Star Logistics', 'gist')).toBe(MATCH.contains);
    expect(matchScore('Lone Star Logistics', 'haul')).toBe(MATCH.none);
    expect(matchScore('anything', '   ')).toBe(MATCH.none);
  });

  it('orders candidates best first and keeps the server order among equals', () => {
    const names = ['Star Haul', 'Lone Star', 'Northstar', 'Starline', 'Gulf'].map((name) => ({ name }));
    expect(rankCarriers(names, 'star').map((c) => c.name)).toEqual([
      'Star Haul',
      'Starline',
      'Lone Star',
      'Northstar',
    ]);
  });

  it('puts an exact SCAC first, above an exact name', () => {
    const carriers = [
      { name: 'Prhl', scac: 'ABCD' },
      { name: 'Prairie Haulers', scac: 'PRHL' },
      { name: 'PRHL Logistics', scac: 'PRLG' },
    ];
    expect(rankCarriers(carriers, 'prhl').map((c) => c.scac)).toEqual(['PRHL', 'ABCD', 'PRLG']);
  });

  it('matches trailer numbers ignoring case, spaces and dashes', () => {
    const trailers = [
      { number: 'XPRFU 4821130', plate: null },
      { number: 'PRFU 482113', plate: null },
      { number: 'PRFU 482114', plate: null },
    ];
    expect(rankTrailers(trailers, 'prfu482113').map((t) => t.number)).toEqual([
      'PRFU 482113',
      'XPRFU 4821130',
    ]);
    expect(rankTrailers(trailers, 'PRFU-48211').map((t) => t.number)).toEqual([
      'PRFU 482113',
      'PRFU 482114',
      'XPRFU 4821130',
    ]);
    expect(compactCode(' prfu 482-113 ')).toBe('prfu482113');
  });

  it('finds a trailer by its plate too', () => {
    const trailers = [
      { number: 'LSLG5300', plate: 'TX 88 A' },
      { number: 'TX88', plate: null },
    ];
    expect(rankTrailers(trailers, 'tx88a').map((t) => t.number)).toEqual(['LSLG5300']);
  });

  it('finds drivers by name in either order, phone digits or licence', () => {
    const drivers = [
      { firstName: 'Dale', lastName: 'Brooks', phone: '+12145550123', licenseNumber: 'TX1234567' },
      { firstName: 'Brooke', lastName: 'Dalton', phone: null, licenseNumber: null },
    ];
    expect(rankDrivers(drivers, 'brooks dale').map((d) => d.firstName)).toEqual(['Dale']);
    expect(rankDrivers(drivers, 'dal').map((d) => d.firstName)).toEqual(['Dale', 'Brooke']);
    expect(rankDrivers(drivers, '214 555 0123').map((d) => d.firstName)).toEqual(['Dale']);
    expect(rankDrivers(drivers, 'tx-1234567').map((d) => d.firstName)).toEqual(['Dale']);
  });
});
