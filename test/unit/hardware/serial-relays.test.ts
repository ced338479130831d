import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RelayHub } from '../../../edge/hardware/relay-hub.js';
import type { GateRelay, RelayBinding } from '../../../shared/hardware.js';
import { HardwareFaultError } from '../../../shared/http/errors.js';
import {
  FakeBoardBinding,
  FakeRelayBoard,
  MockBinding,
  recordingMockBinding,
} from '../../fixtures/fake-relay-board.js';

const bytes = (hex: string) => Buffer.from(hex.replace(/\s/g, ''), 'hex');
const FAST_REOPEN = { min: 20, max: 80 };

function relay(
  driver: RelayBinding['driver'],
  channel: number,
  extra: Partial<RelayBinding> = {},
): RelayBinding {
  return { driver, channel, pulseMs: 100, activeLow: false, device: '/dev/ttyUSB0', ...extra };
}

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A logger that keeps what was logged, to check transitions are logged once. */
function memoryLog() {
  const entries: Array<{ level: string; msg: string; obj: Record<string, unknown> }> = [];
  const at = (level: string) => (obj: Record<string, unknown> | string, msg?: string) =>
    entries.push({
      level,
      msg: typeof obj === 'string' ? obj : (msg ?? ''),
      obj: typeof obj === 'string' ? {} : obj,
    });
  const log = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
  return { entries, log: log as unknown as import('../../../shared/log.js').Logger };
}

let hub: RelayHub | undefined;
beforeEach(() => MockBinding.reset());
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

describe('serial relay boards: exact bytes on the mock binding', () => {
  const cases: Array<{
    driver: RelayBinding['driver'];
    channels: [number, number];
    off: [string, string];
    on: string;
  }> = [
    { driver: 'serial-lcus', channels: [1, 2], off: ['A0 01 00 A1', 'A0 02 00 A2'], on: 'A0 01 01 A2' },
    {
      driver: 'serial-numato',
      channels: [0, 12],
      off: [Buffer.from('relay off 0\r').toString('hex'), Buffer.from('relay off C\r').toString('hex')],
      on: Buffer.from('relay on 0\r').toString('hex'),
    },
    { driver: 'serial-kmtronic', channels: [1, 2], off: ['FF 01 00', 'FF 02 00'], on: 'FF 01 01' },
  ];

  for (const c of cases) {
    it(`${c.driver}: configure turns every relay off, a pulse is on then off, stop turns all off`, async () => {
      MockBinding.createPort('/dev/ttyUSB0', { record: true });
      const { binding, ports } = recordingMockBinding();
      hub = new RelayHub({ serialBinding: binding });
      const gates: GateRelay[] = [
        { gateId: 'north', relay: relay(c.driver, c.channels[0]) },
        { gateId: 'south', relay: relay(c.driver, c.channels[1]) },
      ];
      await hub.configure(gates);
      expect(ports).toHaveLength(1); // two gates, one board, one open port
      expect(ports[0]!.openOptions.baudRate).toBe(9600);
      expect(ports[0]!.recording).toEqual(bytes(c.off.join('')));
      expect(hub.status().map((s) => s.state)).toEqual(['ok', 'ok']);

      await hub.pulse('north', gates[0]!.relay);
      expect(ports[0]!.recording).toEqual(bytes([...c.off, c.on, c.off[0]].join('')));
      expect(hub.status().find((s) => s.gateId === 'north')?.pulses).toBe(1);

      await hub.stop();
      expect(ports[0]!.recording).toEqual(bytes([...c.off, c.on, c.off[0], ...c.off].join('')));
      expect(ports[0]!.isOpen).toBe(false);
    });
  }

  it('serial-modbus: the echo of each coil write is its answer (mock port with echo)', async () => {
    MockBinding.createPort('/dev/ttyUSB0', { record: true, echo: true });
    const { binding, ports } = recordingMockBinding();
    hub = new RelayHub({ serialBinding: binding });
    const north = relay('serial-modbus', 0, { unitId: 1, baudRate: 19_200 });
    await hub.configure([{ gateId: 'north', relay: north }]);
    expect(ports[0]!.openOptions.baudRate).toBe(19_200);
    await hub.pulse('north', north);
    await hub.stop();
    expect(ports[0]!.recording).toEqual(
      bytes(
        '01 05 00 00 00 00 CD CA' +
          '01 05 00 00 FF 00 8C 3A' +
          '01 05 00 00 00 00 CD CA' +
          '01 05 00 00 00 00 CD CA',
      ),
    );
  });

  it('a second concurrent pulse on the same board waits for the port: frames never interleave', async () => {
    const binding = new FakeBoardBinding();
    const board = new FakeRelayBoard('serial-lcus');
    binding.attach('/dev/ttyUSB0', board);
    hub = new RelayHub({ serialBinding: binding });
    const gates = [
      { gateId: 'a', relay: relay('serial-lcus', 1) },
      { gateId: 'b', relay: relay('serial-lcus', 2) },
    ];
    await hub.configure(gates);
    await Promise.all([hub.pulse('a', gates[0]!.relay), hub.pulse('b', gates[1]!.relay)]);
    expect(board.garbage).toHaveLength(0);
    expect(board.commands.slice(2)).toEqual([
      { protocol: 'serial-lcus', channel: 1, energised: true },
      { protocol: 'serial-lcus', channel: 2, energised: true },
      { protocol: 'serial-lcus', channel: 1, energised: false },
      { protocol: 'serial-lcus', channel: 2, energised: false },
    ]);
    expect(binding.opens).toBe(1);
  });
});

describe('serial-modbus answers', () => {
  it('an exception answer fails the pulse with what the board said; other coils still work', async () => {
    const binding = new FakeBoardBinding();
    const board = new FakeRelayBoard('serial-modbus', { unitId: 3, coils: 8 });
    binding.attach('/dev/ttyUSB0', board);
    hub = new RelayHub({ serialBinding: binding });
    const good = relay('serial-modbus', 7, { unitId: 3 });
    const bad = relay('serial-modbus', 40, { unitId: 3 });
    await hub.configure([
      { gateId: 'good', relay: good },
      { gateId: 'bad', relay: bad },
    ]);
    const status = Object.fromEntries(hub.status().map((s) => [s.gateId, s]));
    expect(status.good?.state).toBe('ok');
    expect(status.bad).toMatchObject({
      state: 'fault',
      error: expect.stringMatching(/exception 2 \(illegal data address\)/),
    });

    const err = await hub.pulse('bad', bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HardwareFaultError);
    expect((err as HardwareFaultError).message).toMatch(
      /Modbus relay board on \/dev\/ttyUSB0: Modbus unit 3 refused coil 40: exception 2/,
    );
    await hub.pulse('good', good);
    expect(board.isEnergised(7, 3)).toBe(false);
    expect(board.commands.filter((c) => c.channel === 7).map((c) => c.energised)).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('no answer is a device fault: the pulse fails, status says what to check, and it recovers by itself', async () => {
    const binding = new FakeBoardBinding();
    const board = new FakeRelayBoard('serial-modbus', { unitId: 1 });
    binding.attach('/dev/ttyUSB0', board);
    hub = new RelayHub({ serialBinding: binding, reopenDelayMs: FAST_REOPEN, modbusReplyTimeoutMs: 100 });
    const gate = relay('serial-modbus', 2);
    await hub.configure([{ gateId: 'g', relay: gate }]);
    board.silent = true;
    const err = await hub.pulse('g', gate).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HardwareFaultError);
    expect((err as Error).message).toMatch(
      /Modbus unit 1 did not answer within 100 ms; check the RS-485 wiring/,
    );
    expect((err as Error).message).toMatch(/keeps retrying it in the background/);
    expect(hub.status()[0]).toMatchObject({ state: 'fault', error: expect.stringMatching(/did not answer/) });

    board.silent = false;
    await until('the board answers again', () => hub!.status()[0]?.state === 'ok');
    expect(board.isEnergised(2, 1)).toBe(false);
    await hub.pulse('g', gate);
  });
});

describe('serial port loss', () => {
  it('is detected, reported once, reopened in the background, and every relay is driven off again', async () => {
    const binding = new FakeBoardBinding();
    const board = new FakeRelayBoard('serial-lcus');
    binding.attach('/dev/ttyUSB0', board);
    const { entries, log } = memoryLog();
    hub = new RelayHub({ serialBinding: binding, reopenDelayMs: FAST_REOPEN, log });
    const north = relay('serial-lcus', 1);
    const south = relay('serial-lcus', 3);
    await hub.configure([
      { gateId: 'north', relay: north },
      { gateId: 'south', relay: south },
    ]);

    binding.unplug('/dev/ttyUSB0');
    await until('the hub sees the port gone', () => hub!.status().every((s) => s.state === 'fault'));
    expect(hub.status()[0]?.error).toMatch(/was disconnected \(EIO: i\/o error, read\); check the USB cable/);

    // While it is gone: pulses are refused at once, with the device, the cause and the retry.
    const started = Date.now();
    const err = await hub.pulse('north', north).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HardwareFaultError);
    expect((err as HardwareFaultError).status).toBe(503);
    expect((err as Error).message).toMatch(
      /^LCUS relay board on \/dev\/ttyUSB0 is not available: .*\. The edge keeps retrying it in the background\.$/,
    );
    expect(Date.now() - started).toBeLessThan(1_000);

    // Several reopen attempts fail while unplugged; the fault is logged once, not per attempt.
    const opensBefore = binding.opens;
    await new Promise((r) => setTimeout(r, 300));
    expect(hub.status()[0]?.error).toMatch(
      /cannot be opened \(.*No such file or directory.*\); check that the board is plugged in/,
    );
    expect(entries.filter((e) => e.level === 'error')).toHaveLength(1);
    expect(binding.opens).toBe(opensBefore);

    const before = binding.written('/dev/ttyUSB0').length;
    binding.replug('/dev/ttyUSB0');
    await until('the port is reopened', () => hub!.status().every((s) => s.state === 'ok'));
    expect(binding.written('/dev/ttyUSB0').subarray(before)).toEqual(bytes('A0 01 00 A1 A0 03 00 A3'));
    expect(entries.filter((e) => e.msg === 'relay device recovered')).toHaveLength(1);

    await hub.pulse('north', north);
    expect(board.commands.slice(-2)).toEqual([
      { protocol: 'serial-lcus', channel: 1, energised: true },
      { protocol: 'serial-lcus', channel: 1, energised: false },
    ]);
  });

  it('a port that is missing at start is a fault at configure (which still resolves) and opens once it appears', async () => {
    const binding = new FakeBoardBinding();
    const board = new FakeRelayBoard('serial-kmtronic');
    binding.attach('/dev/ttyUSB0', board);
    binding.unplug('/dev/ttyUSB0');
    hub = new RelayHub({ serialBinding: binding, reopenDelayMs: FAST_REOPEN });
    const gate = relay('serial-kmtronic', 4);
    await hub.configure([{ gateId: 'g', relay: gate }]);
    expect(hub.status()[0]).toMatchObject({ state: 'fault', device: '/dev/ttyUSB0', channel: 4 });
    binding.replug('/dev/ttyUSB0');
    await until('the port opens', () => hub!.status()[0]?.state === 'ok');
    expect(board.commands).toEqual([{ protocol: 'serial-kmtronic', channel: 4, energised: false }]);
  });

  it('a pulse whose de-energise write fails reports that the relay may still be energised', async () => {
    const binding = new FakeBoardBinding();
    const board = new FakeRelayBoard('serial-lcus');
    binding.attach('/dev/ttyUSB0', board);
    hub = new RelayHub({ serialBinding: binding, reopenDelayMs: FAST_REOPEN });
    const gate = relay('serial-lcus', 1, { pulseMs: 300 });
    await hub.configure([{ gateId: 'g', relay: gate }]);
    const pulse = hub.pulse('g', gate).catch((e: unknown) => e);
    await until('the relay is energised', () => board.isEnergised(1));
    binding.unplug('/dev/ttyUSB0');
    const err = await pulse;
    expect(err).toBeInstanceOf(HardwareFaultError);
    expect((err as Error).message).toMatch(/may still be energised/);
    binding.replug('/dev/ttyUSB0');
    await until('reopened', () => hub!.status()[0]?.state === 'ok');
    expect(board.isEnergised(1)).toBe(false);
  });
});
