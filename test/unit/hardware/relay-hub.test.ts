import { afterEach, describe, expect, it } from 'vitest';
import { type RelayCommand, RelayHub } from '../../../edge/hardware/relay-hub.js';
import type { SimulatedRelayDriver } from '../../../edge/hardware/simulated-driver.js';
import type { RelayBinding } from '../../../shared/hardware.js';
import { HardwareFaultError } from '../../../shared/http/errors.js';

function simulated(channel: number, pulseMs = 100): RelayBinding {
  return { driver: 'simulated', channel, pulseMs, activeLow: false };
}

let hub: RelayHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

const commandsOf = (h: RelayHub, gateId: string) => (h.driverOf(gateId) as SimulatedRelayDriver).commands;

describe('relay hub with the simulated driver', () => {
  it('de-energises on configure, pulses on then off, counts pulses, de-energises on stop', async () => {
    const commands: RelayCommand[] = [];
    hub = new RelayHub({ onCommand: (c) => commands.push(c) });
    await hub.configure([
      { gateId: 'north', relay: simulated(1) },
      { gateId: 'south', relay: simulated(2) },
    ]);
    const { durationMs } = await hub.pulse('north', simulated(1));
    expect(durationMs).toBeGreaterThanOrEqual(99);
    expect(hub.status()).toEqual([
      { gateId: 'north', driver: 'simulated', channel: 1, state: 'simulated', pulses: 1 },
      { gateId: 'south', driver: 'simulated', channel: 2, state: 'simulated', pulses: 0 },
    ]);
    const driver = hub.driverOf('north') as SimulatedRelayDriver;
    expect(hub.driverOf('south')).toBe(driver);
    await hub.stop();
    expect(driver.commands).toEqual([
      { channel: 1, energised: false },
      { channel: 2, energised: false },
      { channel: 1, energised: true },
      { channel: 1, energised: false },
      { channel: 1, energised: false },
      { channel: 2, energised: false },
    ]);
    expect(commands.slice(2, 4)).toEqual([
      { device: 'simulated relay board', channel: 1, energised: true },
      { device: 'simulated relay board', channel: 1, energised: false },
    ]);
  });

  it('stop() cuts a long hold short and still de-energises the relay', async () => {
    hub = new RelayHub();
    await hub.configure([{ gateId: 'g', relay: simulated(3, 5_000) }]);
    const pulse = hub.pulse('g', simulated(3, 5_000));
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await hub.stop();
    await pulse;
    expect(Date.now() - started).toBeLessThan(2_000);
    const driver = hub.driverOf('g') as SimulatedRelayDriver;
    expect(driver.commands.at(-1)).toEqual({ channel: 3, energised: false });
    expect(driver.energised.get('3')).toBe(false);
    await expect(hub.pulse('g', simulated(3))).rejects.toThrow(/shutting down/);
  });

  it("reconfiguring never cuts short another gate's pulse; a dropped gate is de-energised and forgotten", async () => {
    hub = new RelayHub();
    await hub.configure([
      { gateId: 'a', relay: simulated(1, 300) },
      { gateId: 'b', relay: simulated(2) },
    ]);
    const pulse = hub.pulse('a', simulated(1, 300));
    await new Promise((r) => setTimeout(r, 50));
    await hub.configure([
      { gateId: 'a', relay: simulated(1, 300) },
      { gateId: 'c', relay: simulated(5) },
    ]);
    await pulse;
    expect(commandsOf(hub, 'a').slice(2)).toEqual([
      { channel: 1, energised: true },
      { channel: 2, energised: false },
      { channel: 5, energised: false },
      { channel: 1, energised: false },
    ]);
    expect(hub.status().map((s) => s.gateId)).toEqual(['a', 'c']);
  });

  it('a pulse for a gate it was not told about (or with a changed binding) configures it first', async () => {
    hub = new RelayHub();
    await hub.pulse('new', simulated(7));
    expect(commandsOf(hub, 'new')).toEqual([
      { channel: 7, energised: false },
      { channel: 7, energised: true },
      { channel: 7, energised: false },
    ]);
    await hub.pulse('new', simulated(8));
    expect(hub.status()).toEqual([
      { gateId: 'new', driver: 'simulated', channel: 8, state: 'simulated', pulses: 2 },
    ]);
  });
});

describe('relay bindings the hub cannot drive', () => {
  it('says what to fix in status and in the 503 fault, and never retries', async () => {
    hub = new RelayHub();
    const noDevice: RelayBinding = { driver: 'serial-lcus', channel: 1, pulseMs: 100, activeLow: false };
    const badChannel: RelayBinding = { ...noDevice, device: '/dev/ttyUSB0', channel: 0 };
    await hub.configure([
      { gateId: 'no-device', relay: noDevice },
      { gateId: 'bad-channel', relay: badChannel },
    ]);
    const status = Object.fromEntries(hub.status().map((s) => [s.gateId, s]));
    expect(status['no-device']).toMatchObject({
      state: 'fault',
      error:
        "serial-lcus needs relay.device, the serial port (e.g. /dev/ttyUSB0); fix the gate's relay binding",
    });
    expect(status['bad-channel']?.error).toMatch(/LCUS relay number must be 1 to 255, got 0/);
    const err = await hub.pulse('no-device', noDevice).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HardwareFaultError);
    expect((err as Error).message).toBe(
      "serial-lcus relay of gate no-device cannot be driven: serial-lcus needs relay.device, the serial port (e.g. /dev/ttyUSB0). Fix the gate's relay binding.",
    );
  });

  it('two board types on one port: the second gate is refused with both named', async () => {
    const absent = async () => {
      throw new Error('Error: No such file or directory, cannot open /dev/ttyUSB0');
    };
    hub = new RelayHub({
      serialBinding: { list: async () => [], open: absent },
      reopenDelayMs: { min: 60_000, max: 60_000 },
    });
    const lcus: RelayBinding = {
      driver: 'serial-lcus',
      channel: 1,
      pulseMs: 100,
      activeLow: false,
      device: '/dev/ttyUSB0',
    };
    const numato: RelayBinding = { ...lcus, driver: 'serial-numato', channel: 0 };
    await hub.configure([
      { gateId: 'a', relay: lcus },
      { gateId: 'b', relay: numato },
    ]);
    expect(hub.status().find((s) => s.gateId === 'b')?.error).toMatch(
      /\/dev\/ttyUSB0 is configured as Numato relay module at 9600 baud here but as serial-lcus at 9600 baud for another gate/,
    );
  });
});
