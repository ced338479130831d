import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayHub } from '../../edge/hardware/relay-hub.js';
import type { RelayBinding } from '../../shared/hardware.js';
import { HardwareFaultError } from '../../shared/http/errors.js';
import { FakeRelayBoard } from '../fixtures/fake-relay-board.js';

/**
 * A relay board on a real serial line: socat joins two pseudo-terminals, the fake board listens on
 * one (serialport, real binding) and the relay hub drives the other (real binding). Killing socat is
 * the USB adapter being pulled; starting it again is the adapter coming back.
 */
const dir = mkdtempSync(join(tmpdir(), 'yard-socat-'));
const boardPath = join(dir, 'board');
const edgePath = join(dir, 'edge');

let socat: ChildProcess | undefined;
let boardPort: SerialPort | undefined;
let hub: RelayHub | undefined;

async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function startSocat(): Promise<void> {
  socat = spawn(
    'socat',
    ['-d', '-d', `pty,raw,echo=0,link=${boardPath}`, `pty,raw,echo=0,link=${edgePath}`],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  socat.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await until(`socat creates both ptys (socat said: ${stderr.trim() || 'nothing'})`, () =>
    /starting data transfer loop/.test(stderr),
  );
}

async function stopSocat(): Promise<void> {
  const child = socat;
  socat = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** The fake board on its end of the line, like a board powered up and listening. */
async function startBoard(board: FakeRelayBoard): Promise<void> {
  const port = new SerialPort({ path: boardPath, baudRate: 9600, autoOpen: false });
  port.on('error', () => {});
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  board.serve(port);
  boardPort = port;
}

async function stopBoard(): Promise<void> {
  const port = boardPort;
  boardPort = undefined;
  if (port?.isOpen) await new Promise<void>((r) => port.close(() => r()));
}

beforeAll(() => {
  const found = spawnSync('socat', ['-V'], { stdio: 'ignore' });
  if (found.error) {
    throw new Error(
      'socat is not installed: this system test needs it (apt-get install socat; CI installs it)',
    );
  }
});

afterAll(async () => {
  await hub?.stop();
  await stopBoard();
  await stopSocat();
  rmSync(dir, { recursive: true, force: true });
});

describe('LCUS relay board on a socat pseudo-terminal', () => {
  const relay: RelayBinding = {
    driver: 'serial-lcus',
    channel: 2,
    pulseMs: 200,
    activeLow: false,
    device: edgePath,
  };
  const board = new FakeRelayBoard('serial-lcus');

  it('configure drives the relay off; a pulse is exactly on then off', async () => {
    await startSocat();
    await startBoard(board);
    hub = new RelayHub({ reopenDelayMs: { min: 100, max: 500 } });
    await hub.configure([{ gateId: 'north', relay }]);
    expect(hub.status()[0]).toMatchObject({ state: 'ok', device: edgePath, channel: 2 });
    await until('the board saw the relay turned off', () => board.commands.length === 1);

    await hub.pulse('north', relay);
    await until('the board saw the pulse end', () => board.commands.length === 3);
    expect(board.commands).toEqual([
      { protocol: 'serial-lcus', channel: 2, energised: false },
      { protocol: 'serial-lcus', channel: 2, energised: true },
      { protocol: 'serial-lcus', channel: 2, energised: false },
    ]);
    expect(board.garbage).toHaveLength(0);
  });

  it('losing the line is a fault; pulses are refused at once with the reason', async () => {
    await stopBoard();
    await stopSocat();
    await until('the hub reports the fault', () => hub!.status()[0]?.state === 'fault');
    // First the disconnect, then (once a reopen attempt has failed) why the port cannot be opened.
    expect(hub!.status()[0]?.error).toMatch(/was disconnected|cannot be opened/);
    const err = await hub!.pulse('north', relay).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HardwareFaultError);
    expect((err as Error).message).toMatch(/LCUS relay board on .* is not available: .*keeps retrying it/);
    expect(existsSync(edgePath)).toBe(false);
  });

  it('when the line comes back the hub reopens it by itself, turns the relay off, and pulses again', async () => {
    const commandsBefore = board.commands.length;
    await startSocat();
    await startBoard(board);
    await until('the hub reopened the port', () => hub!.status()[0]?.state === 'ok');
    await until(
      'the board saw the relay turned off again',
      () => board.commands.length === commandsBefore + 1,
    );
    await hub!.pulse('north', relay);
    await until('the board saw the second pulse end', () => board.commands.length === commandsBefore + 3);
    expect(board.commands.slice(commandsBefore)).toEqual([
      { protocol: 'serial-lcus', channel: 2, energised: false },
      { protocol: 'serial-lcus', channel: 2, energised: true },
      { protocol: 'serial-lcus', channel: 2, energised: false },
    ]);
    expect(hub!.status()[0]).toMatchObject({ state: 'ok', pulses: 2 });
  });
});
