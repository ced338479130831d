import fs from 'node:fs';
import { join } from 'node:path';
import mock from 'mock-fs';

/**
 * A fake /sys/class/gpio: the directory tree in mock-fs, plus the kernel's reactions to writes
 * (export creates gpioN/, direction high|low sets the level with the direction, active_low inverts
 * value writes, unexport removes gpioN/, writing value of an input is EPERM). Every write under the
 * tree is recorded in order, and the physical level of each line is tracked, so tests assert exactly
 * what onoff wrote and what the pin did.
 */
export interface FakeChip {
  /** sysfs directory name: gpiochip<base>. */
  name: string;
  label: string;
  base: number;
  ngpio: number;
  /** The character device the chip's `device` link points at (gpiochip0). */
  deviceName?: string;
}

export interface ExportedLine {
  number: number;
  direction: 'in' | 'out';
  /** Physical level. */
  raw: 0 | 1;
  activeLow: boolean;
}

export interface FakeSysfs {
  /** Every write under the root, relative to it, in order: ['export', '529'], ['gpio529/direction', 'low']. */
  writes: Array<[string, string]>;
  /** Physical levels each line went through, starting with its level when it appeared. */
  levels: Map<number, Array<0 | 1>>;
  /** Errno codes to throw for writes to these files (relative to the root). */
  fail: Map<string, string>;
  isExported(number: number): boolean;
  restore(): void;
}

export const ROOT = '/sys/class/gpio';

interface LineState {
  direction: 'in' | 'out';
  raw: 0 | 1;
  activeLow: boolean;
}

export function installFakeSysfs(chips: FakeChip[], exported: ExportedLine[] = []): FakeSysfs {
  const lines = new Map<number, LineState>();
  const levels = new Map<number, Array<0 | 1>>();
  const writes: Array<[string, string]> = [];
  const fail = new Map<string, string>();

  const tree: Parameters<typeof mock>[0] & object = { export: '', unexport: '' };
  for (const chip of chips) {
    tree[chip.name] = {
      label: `${chip.label}\n`,
      base: `${chip.base}\n`,
      ngpio: `${chip.ngpio}\n`,
      ...(chip.deviceName
        ? { device: mock.symlink({ path: `/sys/devices/platform/soc/gpio/${chip.deviceName}` }) }
        : {}),
    };
  }
  for (const line of exported) {
    lines.set(line.number, { direction: line.direction, raw: line.raw, activeLow: line.activeLow });
    levels.set(line.number, [line.raw]);
    tree[`gpio${line.number}`] = lineFiles(line);
  }
  mock({ [ROOT]: tree });

  const original = {
    writeFileSync: fs.writeFileSync,
    writeSync: fs.writeSync,
    openSync: fs.openSync,
    closeSync: fs.closeSync,
  };
  const fdPaths = new Map<number, string>();

  const setRaw = (number: number, raw: 0 | 1) => {
    const state = lines.get(number)!;
    state.raw = raw;
    const history = levels.get(number) ?? [];
    if (history[history.length - 1] !== raw) history.push(raw);
    levels.set(number, history);
  };

  /** The kernel's side of a write; returns the text the file reads back afterwards. */
  const kernelWrite = (relative: string, value: string): string | undefined => {
    writes.push([relative, value]);
    const code = fail.get(relative);
    if (code)
      throw Object.assign(new Error(`${code}: fake kernel refused, write`), { code, syscall: 'write' });
    if (relative === 'export') {
      const number = Number(value);
      if (lines.has(number))
        throw Object.assign(new Error('EBUSY: resource busy or locked, write'), { code: 'EBUSY' });
      lines.set(number, { direction: 'in', raw: 0, activeLow: false });
      levels.set(number, [0]);
      fs.mkdirSync(join(ROOT, `gpio${number}`));
      for (const [file, text] of Object.entries(
        lineFiles({ number, direction: 'in', raw: 0, activeLow: false }),
      )) {
        original.writeFileSync.call(fs, join(ROOT, `gpio${number}`, file), text);
      }
      return undefined;
    }
    if (relative === 'unexport') {
      const number = Number(value);
      lines.delete(number);
      fs.rmSync(join(ROOT, `gpio${number}`), { recursive: true, force: true });
      return undefined;
    }
    const match = /^gpio(\d+)\/(direction|value|active_low)$/.exec(relative);
    if (!match) return undefined;
    const number = Number(match[1]);
    const state = lines.get(number);
    if (!state) throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    const text = value.trim();
    if (match[2] === 'direction') {
      if (text === 'in') {
        state.direction = 'in';
        return 'in\n';
      }
      state.direction = 'out';
      if (text === 'high') setRaw(number, 1);
      else if (text === 'low' || text === 'out') setRaw(number, 0);
      return 'out\n';
    }
    if (match[2] === 'active_low') {
      state.activeLow = text !== '0';
      return `${state.activeLow ? 1 : 0}\n`;
    }
    if (state.direction === 'in') {
      throw Object.assign(new Error('EPERM: operation not permitted, write'), { code: 'EPERM' });
    }
    const logical = text === '0' ? 0 : 1;
    setRaw(number, (state.activeLow ? 1 - logical : logical) as 0 | 1);
    return `${logical}\n`;
  };

  const relativeOf = (file: unknown) => {
    const path = String(file);
    return path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : undefined;
  };

  fs.writeFileSync = ((file: fs.PathOrFileDescriptor, data: unknown, options?: fs.WriteFileOptions) => {
    const relative = typeof file === 'number' ? undefined : relativeOf(file);
    if (relative === undefined) return original.writeFileSync.call(fs, file, data as string, options);
    const readBack = kernelWrite(relative, String(data));
    if (readBack !== undefined) original.writeFileSync.call(fs, file, readBack);
  }) as typeof fs.writeFileSync;

  fs.openSync = ((path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
    const fd = original.openSync.call(fs, path, flags ?? 'r', mode);
    const relative = relativeOf(path);
    if (relative) fdPaths.set(fd, relative);
    return fd;
  }) as typeof fs.openSync;

  fs.closeSync = ((fd: number) => {
    fdPaths.delete(fd);
    return original.closeSync.call(fs, fd);
  }) as typeof fs.closeSync;

  fs.writeSync = ((fd: number, buffer: NodeJS.ArrayBufferView | string, ...rest: unknown[]) => {
    const relative = fdPaths.get(fd);
    if (relative === undefined)
      return (original.writeSync as (...a: unknown[]) => number).call(fs, fd, buffer, ...rest);
    const text =
      typeof buffer === 'string'
        ? buffer
        : Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength).toString();
    const readBack = kernelWrite(relative, text);
    if (readBack !== undefined) original.writeFileSync.call(fs, join(ROOT, relative), readBack);
    return text.length;
  }) as typeof fs.writeSync;

  return {
    writes,
    levels,
    fail,
    isExported: (number) => lines.has(number),
    restore() {
      Object.assign(fs, original);
      mock.restore();
    },
  };
}

function lineFiles(line: ExportedLine): Record<string, string> {
  const logical = line.activeLow ? 1 - line.raw : line.raw;
  return {
    direction: `${line.direction}\n`,
    value: `${logical}\n`,
    active_low: `${line.activeLow ? 1 : 0}\n`,
    edge: 'none\n',
  };
}

/** Raspberry Pi 4 on kernel 6.6+: the header chip moved from base 0 to 512. */
export const PI4_CHIPS: FakeChip[] = [
  { name: 'gpiochip512', label: 'pinctrl-bcm2711', base: 512, ngpio: 58, deviceName: 'gpiochip0' },
  { name: 'gpiochip570', label: 'raspberrypi-exp-gpio', base: 570, ngpio: 8, deviceName: 'gpiochip1' },
];

/** Raspberry Pi 5 on kernel 6.6+: the header is on RP1 at base 571, after four brcmstb chips. */
export const PI5_CHIPS: FakeChip[] = [
  { name: 'gpiochip512', label: 'gpio-brcmstb@107d508500', base: 512, ngpio: 32 },
  { name: 'gpiochip544', label: 'gpio-brcmstb@107d508520', base: 544, ngpio: 4 },
  { name: 'gpiochip548', label: 'gpio-brcmstb@107d517c00', base: 548, ngpio: 17 },
  { name: 'gpiochip565', label: 'gpio-brcmstb@107d517c20', base: 565, ngpio: 6 },
  { name: 'gpiochip571', label: 'pinctrl-rp1', base: 571, ngpio: 54, deviceName: 'gpiochip0' },
];
