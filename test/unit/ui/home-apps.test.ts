import { describe, expect, it } from 'vitest';
import { appsFor } from '../../../shared/ui/home/apps';

/** The role-aware home (docs/web-apps.md): where each role lands after logging in at `/`. */
describe('the home sends each role to its app', () => {
  it('a carrier user goes to the carrier portal, at the cloud and at a standalone site', () => {
    expect(appsFor('carrier', 'cloud').map((a) => a.href)).toEqual(['/carrier/']);
    expect(appsFor('carrier', 'edge').map((a) => a.href)).toEqual(['/carrier/']);
  });

  it('staff and drivers never land on the carrier portal', () => {
    for (const role of ['admin', 'dispatcher', 'gate', 'billing', 'viewer', 'driver'] as const) {
      for (const server of ['cloud', 'edge'] as const) {
        expect(appsFor(role, server).map((a) => a.href)).not.toContain('/carrier/');
      }
    }
    expect(appsFor('billing', 'cloud').map((a) => a.href)).toEqual(['/dashboard/']);
    expect(appsFor('driver', 'edge').map((a) => a.href)).toEqual(['/driver/']);
  });
});
