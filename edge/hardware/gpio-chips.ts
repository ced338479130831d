import { readdir, readFile, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** A GPIO controller as the kernel lists it. */
export interface GpioChip {
  /** sysfs: gpiochip<base> (e.g. gpiochip512); gpiodetect: the character device (gpiochip0). */
  name: string;
  label: string;
  ngpio: number;
  /** sysfs only: the number of the chip's line 0 in /sys/class/gpio/export. */
  base?: number | undefined;
  /** sysfs only: the character device name of the same chip (gpiochip0), when the kernel links it. */
  deviceName?: string | undefined;
}

/**
 * Labels of the chips that drive the 40-pin header on Raspberry Pi boards: RP1 (Pi 5, CM5),
 * BCM2711 (Pi 4, 400, CM4), BCM2835 (Pi 1-3, Zero). Other chips on those boards (firmware expander,
 * brcmstb controllers) are not on the header.
 */
export const HEADER_CHIP_LABELS = ['pinctrl-rp1', 'pinctrl-bcm2711', 'pinctrl-bcm2835'];

export class GpioChipError extends Error {
  override name = 'GpioChipError';
}

export const DEFAULT_GPIO_SYSFS_ROOT = '/sys/class/gpio';

/**
 * The chips under the sysfs GPIO class (`gpiochip*` with label, base, ngpio). Since kernel 6.6 the
 * bases no longer start at 0 (512 or 571 on Raspberry Pi boards), so line numbers are always
 * computed from the base read here.
 */
export async function readSysfsChips(root = DEFAULT_GPIO_SYSFS_ROOT): Promise<GpioChip[]> {
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new GpioChipError(
      code === 'ENOENT'
        ? `the sysfs GPIO interface (${root}) is not available on this kernel; use driver gpiod instead`
        : `cannot read ${root} (${(err as Error).message})`,
    );
  }
  const chips: GpioChip[] = [];
  for (const entry of entries.filter((e) => /^gpiochip\d+$/.test(e)).sort(byNumber)) {
    const dir = join(root, entry);
    const read = async (file: string) => (await readFile(join(dir, file), 'utf8')).trim();
    const deviceName = await readlink(join(dir, 'device')).then(
      (target) => (/^gpiochip\d+$/.test(basename(target)) ? basename(target) : undefined),
      () => undefined,
    );
    chips.push({
      name: entry,
      label: await read('label'),
      base: Number(await read('base')),
      ngpio: Number(await read('ngpio')),
      deviceName,
    });
  }
  return chips;
}

/**
 * Parses `gpiodetect` output (the same in libgpiod v1 and v2):
 * `gpiochip0 [pinctrl-bcm2711] (58 lines)`.
 */
export function parseGpiodetect(output: string): GpioChip[] {
  const chips: GpioChip[] = [];
  for (const line of output.split('\n')) {
    const match = /^(\S+)\s+\[(.*)\]\s+\((\d+) lines?\)/.exec(line.trim());
    if (match) chips.push({ name: match[1]!, label: match[2]!, ngpio: Number(match[3]) });
  }
  return chips;
}

/**
 * The chip a relay is wired to: the one `device` names (label, or gpiochipN name), or without a
 * device the board's header chip (a known Raspberry Pi label, else the only chip there is).
 */
export function pickChip(chips: GpioChip[], device: string | undefined): GpioChip {
  if (chips.length === 0) throw new GpioChipError('the kernel lists no GPIO chips');
  if (device) {
    const matches = chips.filter((c) => c.label === device || c.name === device || c.deviceName === device);
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      throw new GpioChipError(
        `several GPIO chips match "${device}" (${describeChips(matches)}); set relay.device to a chip name`,
      );
    }
    throw new GpioChipError(
      `no GPIO chip is named or labelled "${device}"; the chips are ${describeChips(chips)}`,
    );
  }
  for (const label of HEADER_CHIP_LABELS) {
    const chip = chips.find((c) => c.label === label);
    if (chip) return chip;
  }
  if (chips.length === 1) return chips[0]!;
  throw new GpioChipError(
    `several GPIO chips and none is a known header chip (${describeChips(chips)}); ` +
      'set relay.device to the label or name of the chip the relay is wired to',
  );
}

/** Throws unless the line exists on the chip. */
export function checkLine(chip: GpioChip, line: number): void {
  if (!Number.isInteger(line) || line < 0 || line >= chip.ngpio) {
    throw new GpioChipError(
      `line ${line} is out of range for ${describeChip(chip)} (lines 0 to ${chip.ngpio - 1})`,
    );
  }
}

export function describeChip(chip: GpioChip): string {
  return `${chip.name} [${chip.label}]`;
}

function describeChips(chips: GpioChip[]): string {
  return chips.map((c) => `${describeChip(c)} ${c.ngpio} lines`).join(', ');
}

function byNumber(a: string, b: string): number {
  return Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, ''));
}
