import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RelayCommand, RelayHub } from '../../../edge/hardware/relay-hub.js';
import type { GateRelay, RelayBinding } from '../../../shared/hardware.js';
import { FakeBoardBinding, FakeRelayBoard, MockBinding } from '../../fixtures/fake-relay-board.js';

/**
 * A pulse cut short by stop() (SIGTERM during a long hold): the pulse itself de-energises its relay
 * before the devices are closed. Closing also drives every relay off, so checking only the final
 * state would not show a pulse that left its "off" to the close; the order of commands does.
 */
const LONG_HOLD_MS = 5_000;

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const off = (channel: number) => ({ channel, energised: false });
const on = (channel: number) => ({ channel, energised: true });

let hub: RelayHub | undefined;
beforeEach(() => MockBinding.reset());
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

describe('a pulse cut short by stop()', () => {
  it('simulated board: on, then the pulse’s own off, then the close turns every relay off', async () => {
    const commands: RelayCommand[] = [];
    hub = new RelayHub({ onCommand: (c) => commands.push(c) });
    const binding = (channel: number): RelayBinding => ({
      driver: 'simulated',
      channel,
      pulseMs: LONG_HOLD_MS,
      activeLow: false,
    });
    await hub.configure([
      { gateId: 'north', relay: binding(1) },
      { gateId: 'south', relay: binding(2) },
    ]);
    const pulse = hub.pulse('north', binding(1));
    await until('the relay is energised', () => commands.length === 3);
    const started = Date.now();
    await hub.stop();
    // The cut pulse resolves (the gate did open), early.
    await expect(pulse).resolves.toHaveProperty('durationMs');
    expect(Date.now() - started).toBeLessThan(LONG_HOLD_MS / 2);
    expect(commands.map(({ channel, energised }) => ({ channel, energised }))).toEqual([
      off(1),
      off(2), // configure
      on(1),
      off(1), // the pulse releases its relay...
      off(1),
      off(2), // ...before the board is closed
    ]);
  });

  it('serial board: the bytes on the wire are on, off for the pulse, then off for every relay at close', async () => {
    const wire = new FakeBoardBinding();
    const board = new FakeRelayBoard('serial-lcus');
    wire.attach('/dev/ttyUSB0', board);
    hub = new RelayHub({ serialBinding: wire });
    const binding = (channel: number): RelayBinding => ({
      driver: 'serial-lcus',
      channel,
      pulseMs: LONG_HOLD_MS,
      activeLow: false,
      device: '/dev/ttyUSB0',
    });
    const gates: GateRelay[] = [
      { gateId: 'north', relay: binding(1) },
      { gateId: 'south', relay: binding(2) },
    ];
    await hub.configure(gates);
    const pulse = hub.pulse('north', binding(1));
    await until('the board energised relay 1', () => board.isEnergised(1));
    await hub.stop();
    await expect(pulse).resolves.toHaveProperty('durationMs');
    expect(board.commands.map(({ channel, energised }) => ({ channel, energised }))).toEqual([
      off(1),
      off(2),
      on(1),
      off(1),
      off(1),
      off(2),
    ]);
    expect(board.isEnergised(1)).toBe(false);
    expect(board.garbage).toHaveLength(0);
  });
});
