import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkLine, parseGpiodetect, pickChip, readSysfsChips } from '../../../edge/hardware/gpio-chips.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'yard-gpiochips-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function chip(name: string, label: string, base: number, ngpio: number, deviceName?: string) {
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, 'label'), `${label}\n`);
  writeFileSync(join(root, name, 'base'), `${base}\n`);
  writeFileSync(join(root, name, 'ngpio'), `${ngpio}\n`);
  if (deviceName) symlinkSync(`../../../devices/platform/soc/gpio/${deviceName}`, join(root, name, 'device'));
}

describe('GPIO chip discovery from sysfs', () => {
  it('reads label, base, ngpio and the character device name of every chip', async () => {
    chip('gpiochip512', 'pinctrl-bcm2711', 512, 58, 'gpiochip0');
    chip('gpiochip570', 'raspberrypi-exp-gpio', 570, 8, 'gpiochip1');
    writeFileSync(join(root, 'export'), '');
    mkdirSync(join(root, 'gpio529'));
    expect(await readSysfsChips(root)).toEqual([
      { name: 'gpiochip512', label: 'pinctrl-bcm2711', base: 512, ngpio: 58, deviceName: 'gpiochip0' },
      { name: 'gpiochip570', label: 'raspberrypi-exp-gpio', base: 570, ngpio: 8, deviceName: 'gpiochip1' },
    ]);
  });

  it('without a device picks the known header chip, else the only chip, else asks for relay.device', async () => {
    chip('gpiochip512', 'gpio-brcmstb@107d508500', 512, 32);
    chip('gpiochip571', 'pinctrl-rp1', 571, 54, 'gpiochip0');
    expect(pickChip(await readSysfsChips(root), undefined)).toMatchObject({
      label: 'pinctrl-rp1',
      base: 571,
    });
    expect(pickChip([{ name: 'gpiochip0', label: 'gpio-mockup-A', base: 0, ngpio: 8 }], undefined).name).toBe(
      'gpiochip0',
    );
    expect(() =>
      pickChip(
        [
          { name: 'gpiochip0', label: 'a', base: 0, ngpio: 8 },
          { name: 'gpiochip8', label: 'b', base: 8, ngpio: 8 },
        ],
        undefined,
      ),
    ).toThrow(
      'several GPIO chips and none is a known header chip (gpiochip0 [a] 8 lines, gpiochip8 [b] 8 lines); set relay.device',
    );
  });

  it('says when the kernel has no sysfs GPIO, and checks the line against ngpio', async () => {
    await expect(readSysfsChips(join(root, 'missing'))).rejects.toThrow(
      /not available on this kernel; use driver gpiod/,
    );
    const pi4 = { name: 'gpiochip512', label: 'pinctrl-bcm2711', base: 512, ngpio: 58 };
    expect(() => checkLine(pi4, 57)).not.toThrow();
    expect(() => checkLine(pi4, 58)).toThrow(
      'line 58 is out of range for gpiochip512 [pinctrl-bcm2711] (lines 0 to 57)',
    );
  });

  it('parses gpiodetect output (v1 and v2 print the same)', () => {
    const output = 'gpiochip0 [pinctrl-bcm2711] (58 lines)\ngpiochip1 [raspberrypi-exp-gpio] (8 lines)\n';
    expect(parseGpiodetect(output)).toEqual([
      { name: 'gpiochip0', label: 'pinctrl-bcm2711', ngpio: 58 },
      { name: 'gpiochip1', label: 'raspberrypi-exp-gpio', ngpio: 8 },
    ]);
    expect(pickChip(parseGpiodetect(output), 'raspberrypi-exp-gpio').name).toBe('gpiochip1');
  });
});
