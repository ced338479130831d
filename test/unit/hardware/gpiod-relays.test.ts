import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  holdArgs,
  parseGpiosetVersion,
  pulseArgs,
  setAndExitArgs,
} from '../../../edge/hardware/gpioset-cli.js';
import { RelayHub } from '../../../edge/hardware/relay-hub.js';
import type { RelayBinding } from '../../../shared/hardware.js';
import { HardwareFaultError } from '../../../shared/http/errors.js';

const FAKE_DIR = resolve('test/fixtures/fake-gpioset');
const GPIOSET = join(FAKE_DIR, 'gpioset');

function gpiod(channel: number, extra: Partial<RelayBinding> = {}): RelayBinding {
  return { driver: 'gpiod', channel, pulseMs: 100, activeLow: false, ...extra };
}

interface Run {
  pid: string;
  args: string;
  events: string[];
}

/** Every gpioset run recorded by the fake, in start order, with what happened to it. */
function runs(logFile: string): Run[] {
  const byPid = new Map<string, Run>();
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  for (const line of text.split('\n').filter(Boolean)) {
    const [pid, event, ...rest] = line.split(' ');
    if (event === 'start') byPid.set(pid!, { pid: pid!, args: rest.join(' '), events: [] });
    else byPid.get(pid!)?.events.push(rest.length ? `${event} ${rest.join(' ')}` : event!);
  }
  return [...byPid.values()];
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let dir: string;
let logFile: string;
let hub: RelayHub | undefined;
const savedEnv = { ...process.env };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'yard-gpiod-'));
  logFile = join(dir, 'gpioset.log');
  process.env.FAKE_GPIOSET_LOG = logFile;
});
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
  process.env = { ...savedEnv };
  rmSync(dir, { recursive: true, force: true });
});

describe('gpioset command lines', () => {
  it('tells v1 from v2 by --version', () => {
    expect(parseGpiosetVersion('gpioset (libgpiod) v1.6.3\nCopyright')).toBe(1);
    expect(parseGpiosetVersion('gpioset (libgpiod) v2.1\n')).toBe(2);
    expect(parseGpiosetVersion('gpioset v2.2.1 (libgpiod v2.2.1)\n')).toBe(2);
    expect(() => parseGpiosetVersion('gpioset: command not found')).toThrow(
      /cannot tell the gpioset version/,
    );
  });

  it('v1: chip and line=value positional, --active-low, --mode signal|time|exit', () => {
    const req = { chip: 'gpiochip0', line: 17, activeLow: true };
    expect(holdArgs(1, req, 0)).toEqual(['--mode=signal', '--active-low', 'gpiochip0', '17=0']);
    expect(pulseArgs(1, req, 1500)).toEqual([
      '--mode=time',
      '--sec=1',
      '--usec=500000',
      '--active-low',
      'gpiochip0',
      '17=1',
    ]);
    expect(setAndExitArgs(1, { ...req, activeLow: false }, 0)).toEqual(['--mode=exit', 'gpiochip0', '17=0']);
  });

  it('v2: -c chip, -l, toggle after the pulse then exit, -t 0 to set and exit', () => {
    const req = { chip: 'gpiochip0', line: 17, activeLow: true };
    expect(holdArgs(2, req, 0)).toEqual(['--banner', '-C', 'yard-gate', '-c', 'gpiochip0', '-l', '17=0']);
    expect(pulseArgs(2, req, 500)).toEqual([
      '--banner',
      '-C',
      'yard-gate',
      '-c',
      'gpiochip0',
      '-l',
      '-t',
      '500ms,0',
      '17=1',
    ]);
    expect(setAndExitArgs(2, { ...req, activeLow: false }, 0)).toEqual([
      '-C',
      'yard-gate',
      '-c',
      'gpiochip0',
      '-t',
      '0',
      '17=0',
    ]);
  });
});

describe('gpiod relays with a fake gpioset', () => {
  it('v2: holds the line de-energised, pulses with a self-ending toggle, holds again, sets 0 and exits on stop', async () => {
    process.env.FAKE_GPIOSET_VERSION = '2';
    hub = new RelayHub({ gpiosetCommand: GPIOSET });
    const relay = gpiod(17);
    await hub.configure([{ gateId: 'north', relay }]);
    expect(runs(logFile)).toEqual([
      { pid: expect.any(String), args: '--banner -C yard-gate -c gpiochip0 17=0', events: [] },
    ]);
    expect(hub.status()[0]).toMatchObject({ state: 'ok' });

    await hub.pulse('north', relay);
    await hub.stop();
    expect(runs(logFile).map((r) => [r.args, r.events])).toEqual([
      ['--banner -C yard-gate -c gpiochip0 17=0', ['exit signal']],
      ['--banner -C yard-gate -c gpiochip0 -t 100ms,0 17=1', ['toggle', 'exit done']],
      ['--banner -C yard-gate -c gpiochip0 17=0', ['exit signal']],
      ['-C yard-gate -c gpiochip0 -t 0 17=0', ['exit done']],
    ]);
  });

  it('v1: --mode=signal holder, --mode=time pulse, --mode=exit on stop, --active-low passed through', async () => {
    process.env.FAKE_GPIOSET_VERSION = '1';
    hub = new RelayHub({ gpiosetCommand: GPIOSET });
    const relay = gpiod(4, { activeLow: true, pulseMs: 250 });
    await hub.configure([{ gateId: 'south', relay }]);
    await hub.pulse('south', relay);
    await hub.stop();
    expect(runs(logFile).map((r) => [r.args, r.events])).toEqual([
      ['--mode=signal --active-low gpiochip0 4=0', ['exit signal']],
      ['--mode=time --sec=0 --usec=250000 --active-low gpiochip0 4=1', ['exit done']],
      ['--mode=signal --active-low gpiochip0 4=0', ['exit signal']],
      ['--mode=exit --active-low gpiochip0 4=0', ['exit done']],
    ]);
  });

  it('finds gpioset on PATH and resolves a chip label with gpiodetect; a chip name is used as given', async () => {
    process.env.PATH = `${FAKE_DIR}:${process.env.PATH}`;
    hub = new RelayHub();
    await hub.configure([
      { gateId: 'a', relay: gpiod(3, { device: 'raspberrypi-exp-gpio' }) },
      { gateId: 'b', relay: gpiod(5, { device: 'gpiochip4' }) },
    ]);
    expect(
      runs(logFile)
        .map((r) => r.args)
        .sort(),
    ).toEqual(['--banner -C yard-gate -c gpiochip1 3=0', '--banner -C yard-gate -c gpiochip4 5=0']);
    expect(hub.status().map((s) => s.state)).toEqual(['ok', 'ok']);
  });

  it('a line beyond the chip (from gpiodetect) is a fault before anything is run', async () => {
    hub = new RelayHub({ gpiosetCommand: GPIOSET, reopenDelayMs: { min: 60_000, max: 60_000 } });
    await hub.configure([{ gateId: 'g', relay: gpiod(60) }]);
    expect(hub.status()[0]?.error).toMatch(/line 60 is out of range for gpiochip0 \[pinctrl-bcm2711\]/);
    expect(runs(logFile)).toEqual([]);
  });

  it('a line gpioset cannot request is a fault with its message; pulses fail at once; it is retried until it works', async () => {
    process.env.FAKE_GPIOSET_FAIL = '1';
    hub = new RelayHub({ gpiosetCommand: GPIOSET, reopenDelayMs: { min: 50, max: 100 } });
    const relay = gpiod(17);
    await hub.configure([{ gateId: 'g', relay }]);
    expect(hub.status()[0]).toMatchObject({
      state: 'fault',
      error: expect.stringMatching(
        /unable to request lines on chip '\/dev\/gpiochip0': Device or resource busy/,
      ),
    });
    const err = await hub.pulse('g', relay).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HardwareFaultError);
    expect((err as Error).message).toMatch(
      /^GPIO line 17 on gpiochip0 \(gpioset\) is not available: .*retrying it/,
    );
    expect(runs(logFile).filter((r) => r.args.includes('17=1'))).toEqual([]);

    delete process.env.FAKE_GPIOSET_FAIL;
    await until('the line is requested', () => hub!.status()[0]?.state === 'ok');
    await hub.pulse('g', relay);
  });

  it('a holder that dies is reported and restarted at the de-energised level', async () => {
    hub = new RelayHub({ gpiosetCommand: GPIOSET, reopenDelayMs: { min: 50, max: 100 } });
    await hub.configure([{ gateId: 'g', relay: gpiod(17) }]);
    const holder = runs(logFile)[0]!;
    process.kill(Number(holder.pid), 'SIGKILL');
    await until('the fault is seen', () => hub!.status()[0]?.state === 'fault');
    expect(hub.status()[0]?.error).toMatch(/gpioset holding line 17 exited \(killed by SIGKILL\)/);
    await until('a new holder runs', () => hub!.status()[0]?.state === 'ok');
    expect(runs(logFile).map((r) => r.args)).toEqual([
      '--banner -C yard-gate -c gpiochip0 17=0',
      '--banner -C yard-gate -c gpiochip0 17=0',
    ]);
  });

  it('without gpioset the fault says to install the gpiod package', async () => {
    hub = new RelayHub({
      gpiosetCommand: join(dir, 'no-such-gpioset'),
      reopenDelayMs: { min: 60_000, max: 60_000 },
    });
    await hub.configure([{ gateId: 'g', relay: gpiod(17, { device: 'gpiochip0' }) }]);
    expect(hub.status()[0]?.error).toMatch(/no-such-gpioset is not installed \(install the gpiod package\)/);
  });
});
