import { afterEach, describe, expect, it } from 'vitest';
import { RelayHub } from '../../../edge/hardware/relay-hub.js';
import type { RelayBinding } from '../../../shared/hardware.js';
import { HardwareFaultError } from '../../../shared/http/errors.js';
import { type FakeSysfs, installFakeSysfs, PI4_CHIPS, PI5_CHIPS } from './fake-sysfs.js';

const FAST_REOPEN = { min: 20, max: 80 };

function gpio(channel: number, extra: Partial<RelayBinding> = {}): RelayBinding {
  return { driver: 'gpio', channel, pulseMs: 100, activeLow: false, ...extra };
}

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let sysfs: FakeSysfs | undefined;
let hub: RelayHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
  sysfs?.restore();
  sysfs = undefined;
});

describe('GPIO relays through sysfs (onoff) on a fake /sys/class/gpio', () => {
  it('Pi 4, kernel 6.6: exports base 512 + line, sets active_low 0 and the level with the direction, pulses, unexports on stop', async () => {
    sysfs = installFakeSysfs(PI4_CHIPS);
    hub = new RelayHub();
    const relay = gpio(17);
    await hub.configure([{ gateId: 'north', relay }]);
    expect(sysfs.writes).toEqual([
      ['export', '529'],
      ['gpio529/active_low', '0'],
      ['gpio529/direction', 'low'],
      ['gpio529/value', '0'],
    ]);
    expect(hub.status()).toEqual([{ gateId: 'north', driver: 'gpio', channel: 17, state: 'ok', pulses: 0 }]);

    sysfs.writes.length = 0;
    await hub.pulse('north', relay);
    expect(sysfs.writes).toEqual([
      ['gpio529/value', '1'],
      ['gpio529/value', '0'],
    ]);

    sysfs.writes.length = 0;
    await hub.stop();
    expect(sysfs.writes).toEqual([
      ['gpio529/value', '0'],
      ['unexport', '529'],
    ]);
    expect(sysfs.isExported(529)).toBe(false);
    expect(sysfs.levels.get(529)).toEqual([0, 1, 0]);
  });

  it('Pi 5, active-low relay: finds pinctrl-rp1 at base 571 and drives high to de-energise, low to energise', async () => {
    sysfs = installFakeSysfs(PI5_CHIPS);
    hub = new RelayHub();
    const relay = gpio(4, { activeLow: true });
    await hub.configure([{ gateId: 'south', relay }]);
    await hub.pulse('south', relay);
    expect(sysfs.writes).toEqual([
      ['export', '575'],
      ['gpio575/active_low', '0'],
      ['gpio575/direction', 'high'],
      ['gpio575/value', '1'],
      ['gpio575/value', '0'],
      ['gpio575/value', '1'],
    ]);
    // The freshly exported input read 0; the output started high (de-energised) and pulsed low once.
    expect(sysfs.levels.get(575)).toEqual([0, 1, 0, 1]);
  });

  it('restart with the line still exported: no export, stale active_low cleared, level set with the direction, no glitch', async () => {
    sysfs = installFakeSysfs(PI4_CHIPS, [{ number: 539, direction: 'out', raw: 1, activeLow: true }]);
    hub = new RelayHub();
    await hub.configure([{ gateId: 'g', relay: gpio(27, { activeLow: true }) }]);
    expect(sysfs.writes).toEqual([
      ['gpio539/active_low', '0'],
      ['gpio539/direction', 'high'],
      ['gpio539/value', '1'],
    ]);
    // It was de-energised (high) and never left that level.
    expect(sysfs.levels.get(539)).toEqual([1]);
    expect(hub.status()[0]?.state).toBe('ok');
  });

  it('restart after a crash mid-pulse: a relay left energised is de-energised at configure', async () => {
    sysfs = installFakeSysfs(PI4_CHIPS, [{ number: 529, direction: 'out', raw: 1, activeLow: false }]);
    hub = new RelayHub();
    await hub.configure([{ gateId: 'g', relay: gpio(17) }]);
    expect(sysfs.levels.get(529)).toEqual([1, 0]);
  });

  it('names the chip by label, by sysfs name or by character device name', async () => {
    sysfs = installFakeSysfs(PI4_CHIPS);
    hub = new RelayHub();
    await hub.configure([
      { gateId: 'a', relay: gpio(1, { device: 'raspberrypi-exp-gpio' }) },
      { gateId: 'b', relay: gpio(2, { device: 'gpiochip512' }) },
      { gateId: 'c', relay: gpio(3, { device: 'gpiochip0' }) },
    ]);
    expect(
      sysfs.writes
        .filter(([file]) => file === 'export')
        .map(([, n]) => n)
        .sort(),
    ).toEqual(['514', '515', '571']);
    expect(hub.status().map((s) => s.state)).toEqual(['ok', 'ok', 'ok']);
  });

  it('a line beyond the chip, an unknown chip, or no header chip among several is a fault that says what to set', async () => {
    sysfs = installFakeSysfs([
      { name: 'gpiochip0', label: 'gpio-mockup-A', base: 0, ngpio: 8 },
      { name: 'gpiochip8', label: 'gpio-mockup-B', base: 8, ngpio: 8 },
    ]);
    hub = new RelayHub({ reopenDelayMs: { min: 60_000, max: 60_000 } });
    await hub.configure([
      { gateId: 'none', relay: gpio(1) },
      { gateId: 'unknown', relay: gpio(1, { device: 'pinctrl-bcm2711' }) },
      { gateId: 'range', relay: gpio(9, { device: 'gpio-mockup-B' }) },
    ]);
    const status = Object.fromEntries(hub.status().map((s) => [s.gateId, s.error]));
    expect(status.none).toMatch(/several GPIO chips and none is a known header chip .*set relay.device/);
    expect(status.unknown).toMatch(/no GPIO chip is named or labelled "pinctrl-bcm2711"/);
    expect(status.range).toMatch(/line 9 is out of range for gpiochip8 \[gpio-mockup-B\] \(lines 0 to 7\)/);
    expect(sysfs.writes).toEqual([]);
  });

  it('an export failure is a fault naming the cause; pulses fail at once; it is retried until it works', async () => {
    sysfs = installFakeSysfs(PI4_CHIPS);
    sysfs.fail.set('export', 'EACCES');
    hub = new RelayHub({ reopenDelayMs: FAST_REOPEN });
    const relay = gpio(22);
    await hub.configure([{ gateId: 'g', relay }]);
    expect(hub.status()[0]).toMatchObject({
      state: 'fault',
      error: expect.stringMatching(/setting up sysfs gpio534 failed .*EACCES.*add it to the gpio group/),
    });
    const err = await hub.pulse('g', relay).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HardwareFaultError);
    expect((err as Error).message).toMatch(
      /^GPIO line 22 on gpiochip512 \[pinctrl-bcm2711\] is not available: .*retrying it/,
    );
    expect(sysfs.writes.filter(([, v]) => v === '1')).toEqual([]);

    sysfs.fail.clear();
    await until('the export is retried', () => hub!.status()[0]?.state === 'ok');
    await hub.pulse('g', relay);
    expect(sysfs.levels.get(534)).toEqual([0, 1, 0]);
  });

  it.each([
    ['EBUSY', /claimed by a kernel driver or another program/],
    ['EPERM', /add it to the gpio group/],
    ['ENOENT', /this kernel has no sysfs GPIO export \(use driver gpiod\)/],
    ['EINVAL', /the kernel does not know this GPIO number/],
  ])('export failing with %s names the likely cause', async (code, hint) => {
    sysfs = installFakeSysfs(PI4_CHIPS);
    sysfs.fail.set('export', code);
    hub = new RelayHub({ reopenDelayMs: { min: 60_000, max: 60_000 } });
    await hub.configure([{ gateId: 'g', relay: gpio(4) }]);
    expect(hub.status()[0]?.error).toMatch(new RegExp(`gpio516 failed \\(${code}`));
    expect(hub.status()[0]?.error).toMatch(hint);
  });

  it('an exported line whose direction cannot be set (onoff ignores that) is caught by the level write', async () => {
    sysfs = installFakeSysfs(PI4_CHIPS, [{ number: 529, direction: 'in', raw: 0, activeLow: false }]);
    sysfs.fail.set('gpio529/direction', 'EACCES');
    hub = new RelayHub({ reopenDelayMs: { min: 60_000, max: 60_000 } });
    await hub.configure([{ gateId: 'g', relay: gpio(17) }]);
    expect(hub.status()[0]?.error).toMatch(/gpio529 failed \(EPERM/);
  });

  it('without sysfs GPIO the fault says to use gpiod', async () => {
    sysfs = installFakeSysfs(PI4_CHIPS);
    hub = new RelayHub({
      gpioSysfsRoot: '/sys/class/no-gpio-here',
      reopenDelayMs: { min: 60_000, max: 60_000 },
    });
    await hub.configure([{ gateId: 'g', relay: gpio(4) }]);
    expect(hub.status()[0]?.error).toMatch(/not available on this kernel; use driver gpiod/);
  });

  it('a gate dropped from the configuration is de-energised and unexported', async () => {
    sysfs = installFakeSysfs(PI4_CHIPS);
    hub = new RelayHub();
    await hub.configure([
      { gateId: 'a', relay: gpio(5) },
      { gateId: 'b', relay: gpio(6) },
    ]);
    sysfs.writes.length = 0;
    await hub.configure([{ gateId: 'b', relay: gpio(6) }]);
    expect(sysfs.writes).toEqual([
      ['gpio517/value', '0'],
      ['unexport', '517'],
    ]);
    expect(hub.status().map((s) => s.gateId)).toEqual(['b']);
  });
});
