import type {
  GateDriverStatus,
  GateHardware,
  GateRelay,
  PulseProgress,
  RelayBinding,
} from '../../shared/hardware.js';
import { HardwareFaultError } from '../../shared/http/errors.js';
import { type DriverFactory, type DriverSettings, type OnCommand, planDevice } from './device-plan.js';
import { errorText, type GateDriver, lineKey, RelayFault, type RelayLine } from './gate-driver.js';
import { detectGpiosetVersion, type GpiosetVersion } from './gpioset-cli.js';
import { listSerialPorts, type SerialPortInfo } from './serial-ports.js';

export interface RelayHubOptions extends DriverSettings {
  /** Called as each relay command is issued to a device (benchmarks, diagnostics). */
  onCommand?: ((command: RelayCommand) => void) | undefined;
}

export interface RelayCommand {
  device: string;
  channel: number;
  energised: boolean;
}

interface ConfiguredGate {
  relay: RelayBinding;
  key: string;
  line: RelayLine;
  pulses: number;
}

/**
 * The edge's gate hardware: picks a GateDriver per gate from its relay binding and shares one driver
 * per physical device (gates on two channels of one serial board share the open port). A pulse
 * energises, holds pulseMs and always de-energises, also when the hold is cut short by stop().
 */
export class RelayHub implements GateHardware {
  private readonly gates = new Map<string, ConfiguredGate>();
  private readonly devices = new Map<string, { driver: GateDriver; signature: string }>();
  private configuring: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Ends the holds in progress early (stop()); each resolves its pulse's hold at once. */
  private readonly holds = new Set<() => void>();
  private stopped = false;
  private gpiosetVersion: Promise<GpiosetVersion> | undefined;

  /** What planDevice needs from the hub to create a driver. */
  private readonly factory: DriverFactory;

  constructor(private readonly options: RelayHubOptions = {}) {
    this.factory = {
      settings: options,
      commandHook: (device) => this.commandHook(device),
      gpiosetVersion: (command) => this.detectGpioset(command),
    };
  }

  /** The serial ports the box can see (never throws; works without udevadm). */
  serialPorts(): Promise<SerialPortInfo[]> {
    return listSerialPorts();
  }

  configure(gates: GateRelay[]): Promise<void> {
    const run = () => this.apply(gates);
    const result = this.configuring.then(run, run);
    this.configuring = result.catch(() => {});
    return result;
  }

  async pulse(
    gateId: string,
    relay: RelayBinding,
    progress?: PulseProgress,
  ): Promise<{ durationMs: number }> {
    if (this.stopped) throw new HardwareFaultError('Gate relays are stopped: the edge is shutting down.');
    const known = this.gates.get(gateId);
    if (!known || !sameBinding(known.relay, relay)) {
      const others = [...this.gates]
        .filter(([id]) => id !== gateId)
        .map(([id, g]) => ({ gateId: id, relay: g.relay }));
      await this.configure([...others, { gateId, relay }]);
    }
    const gate = this.gates.get(gateId);
    const driver = gate && this.devices.get(gate.key)?.driver;
    if (!gate || !driver) throw new HardwareFaultError(`Gate ${gateId} has no relay configured.`);
    // A faulted device rejects set() at once, with what failed and whether it is being retried.
    const started = performance.now();
    const pulse = this.energiseHoldRelease(driver, gate.line, progress);
    this.inFlight.add(pulse);
    try {
      await pulse;
    } finally {
      this.inFlight.delete(pulse);
    }
    // A configure() during the pulse may have replaced the gate's entry; count on the current one.
    const current = this.gates.get(gateId);
    if (current) current.pulses++;
    return { durationMs: performance.now() - started };
  }

  status(): GateDriverStatus[] {
    return [...this.gates].map(([gateId, gate]) => {
      const status = this.devices.get(gate.key)?.driver.status(gate.line) ?? { state: 'opening' as const };
      return {
        gateId,
        driver: gate.relay.driver,
        ...(gate.relay.device === undefined ? {} : { device: gate.relay.device }),
        channel: gate.relay.channel,
        state: status.state,
        ...(status.error === undefined ? {} : { error: status.error }),
        pulses: gate.pulses,
      };
    });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const cut of this.holds) cut();
    await Promise.allSettled([...this.inFlight]);
    await this.configuring;
    await Promise.all([...this.devices.values()].map(({ driver }) => driver.close()));
  }

  /** The driver serving a gate (tests and diagnostics). */
  driverOf(gateId: string): GateDriver | undefined {
    const gate = this.gates.get(gateId);
    return gate && this.devices.get(gate.key)?.driver;
  }

  private async energiseHoldRelease(
    driver: GateDriver,
    line: RelayLine,
    progress?: PulseProgress,
  ): Promise<void> {
    let failure: unknown;
    try {
      await driver.set(line, true);
      // set() resolved: the bytes were written (and, for Modbus, echoed by the board).
      progress?.energised();
      if (!(await this.hold(line.pulseMs))) {
        this.options.log?.warn(
          { device: driver.name, channel: line.channel },
          'relay pulse cut short by shutdown',
        );
      }
    } catch (err) {
      failure = err;
    } finally {
      try {
        await driver.set(line, false);
      } catch (err) {
        failure ??= new RelayFault(
          `${errorText(err)} The relay may still be energised after the pulse; the edge de-energises it as soon as the device answers again.`,
          err instanceof RelayFault && err.retrying,
        );
      }
    }
    if (failure) throw toHardwareFault(driver, failure);
  }

  /** Waits pulseMs; resolves false when stop() cut the hold short. */
  private hold(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const cut = () => {
        clearTimeout(timer);
        this.holds.delete(cut);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.holds.delete(cut);
        resolve(true);
      }, ms);
      this.holds.add(cut);
    });
  }

  private async apply(gates: GateRelay[]): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map<
      string,
      { driver: () => GateDriver; signature: string; lines: Map<string, RelayLine> }
    >();
    const configured = new Map<string, ConfiguredGate>();
    for (const { gateId, relay } of gates) {
      const line = toLine(relay);
      const plan = planDevice(gateId, relay, wanted, this.factory);
      const group = wanted.get(plan.key) ?? {
        driver: plan.driver,
        signature: plan.signature,
        lines: new Map(),
      };
      if (!group.lines.has(lineKey(line))) group.lines.set(lineKey(line), line);
      wanted.set(plan.key, group);
      configured.set(gateId, { relay, key: plan.key, line, pulses: this.gates.get(gateId)?.pulses ?? 0 });
    }
    for (const [key, device] of [...this.devices]) {
      const next = wanted.get(key);
      if (next && next.signature === device.signature) continue;
      this.devices.delete(key);
      await device.driver.close();
    }
    this.gates.clear();
    for (const [gateId, gate] of configured) this.gates.set(gateId, gate);
    await Promise.all(
      [...wanted].map(async ([key, group]) => {
        let device = this.devices.get(key);
        if (!device) {
          device = { driver: group.driver(), signature: group.signature };
          this.devices.set(key, device);
        }
        await device.driver.open([...group.lines.values()]);
      }),
    );
  }

  private commandHook(device: () => string): OnCommand | undefined {
    const onCommand = this.options.onCommand;
    if (!onCommand) return undefined;
    return (line, energised) => onCommand({ device: device(), channel: line.channel, energised });
  }

  /** Detected once; a failure (gpioset missing) is retried on the next attempt. */
  private detectGpioset(command: string): Promise<GpiosetVersion> {
    this.gpiosetVersion ??= detectGpiosetVersion(command).catch((err: unknown) => {
      this.gpiosetVersion = undefined;
      throw err;
    });
    return this.gpiosetVersion;
  }
}

function toLine(relay: RelayBinding): RelayLine {
  return {
    channel: relay.channel,
    activeLow: relay.activeLow,
    pulseMs: relay.pulseMs,
    ...(relay.driver === 'serial-modbus' ? { unitId: relay.unitId ?? 1 } : {}),
  };
}

function sameBinding(a: RelayBinding, b: RelayBinding): boolean {
  return (
    a.driver === b.driver &&
    a.channel === b.channel &&
    a.pulseMs === b.pulseMs &&
    a.activeLow === b.activeLow &&
    a.device === b.device &&
    a.baudRate === b.baudRate &&
    a.unitId === b.unitId
  );
}

function toHardwareFault(driver: GateDriver, err: unknown): HardwareFaultError {
  if (err instanceof HardwareFaultError) return err;
  if (err instanceof RelayFault) return new HardwareFaultError(err.message);
  return new HardwareFaultError(`${driver.name} failed: ${errorText(err)}`);
}
