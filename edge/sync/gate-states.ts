import type { GateHardware } from '../../shared/hardware.js';
import type { SiteStatus } from '../../shared/sync/protocol.js';
import { MAX_REPORTED_GATES } from '../../shared/sync/protocol.js';

export type ReportedGates = NonNullable<SiteStatus['gates']>;

/** How often the relays' states are compared with the last ones reported. */
const CHECK_EVERY_MS = 1_000;

/**
 * The gates' relay states for the site status (the cloud's sites page). The relay hub keeps each
 * device's state in memory (DeviceHealth) without telling anyone when it changes, so this compares
 * it once a second, which costs a walk over a handful of gates, and calls `onChange` when a state
 * differs from what was last reported.
 */
export class GateStates {
  private reported = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly gates: Pick<GateHardware, 'status'>,
    private readonly onChange: () => void,
    private readonly everyMs = CHECK_EVERY_MS,
  ) {}

  /** The states now, by gate id; remembered as reported. */
  report(): ReportedGates {
    const now = this.current();
    this.reported = JSON.stringify(now);
    return now;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (JSON.stringify(this.current()) !== this.reported) this.onChange();
    }, this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private current(): ReportedGates {
    return this.gates
      .status()
      .map((g) => ({ gateId: g.gateId, state: g.state }))
      .sort((a, b) => (a.gateId < b.gateId ? -1 : a.gateId > b.gateId ? 1 : 0))
      .slice(0, MAX_REPORTED_GATES);
  }
}
