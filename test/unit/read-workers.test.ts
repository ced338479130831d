import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/config.js';
import { defaultReadWorkers } from '../../shared/role-profile.js';

describe('how many read workers', () => {
  it('YARD_READ_WORKERS sets it (0: reads on the main thread); unset, the role decides', () => {
    expect(loadConfig({ YARD_READ_WORKERS: '0' }).readWorkers).toBe(0);
    expect(loadConfig({ YARD_READ_WORKERS: '3' }).readWorkers).toBe(3);
    expect(loadConfig({}).readWorkers).toBeUndefined();
    expect(() => loadConfig({ YARD_READ_WORKERS: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ YARD_READ_WORKERS: 'two' })).toThrow(/YARD_READ_WORKERS/);
  });

  it('an edge keeps one; the cloud one per core beyond the first, from 1 to 4', () => {
    expect(defaultReadWorkers('edge', 8)).toBe(1);
    expect(defaultReadWorkers('cloud', 1)).toBe(1);
    expect(defaultReadWorkers('cloud', 2)).toBe(1);
    expect(defaultReadWorkers('cloud', 4)).toBe(3);
    expect(defaultReadWorkers('cloud', 16)).toBe(4);
  });
});
