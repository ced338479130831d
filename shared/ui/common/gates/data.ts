import { api, call, type Schemas } from '../api/client';

export type Actuation = Schemas['GateActuation'];
export type HardwareStatus = Schemas['HardwareStatus'];

/** Opens a gate by hand with the reason (audited); at the cloud the site's edge pulses the relay. */
export function actuateGate(gateId: string, reason: string): Promise<Actuation> {
  return call(
    api.POST('/api/hardware/gate/{gateId}/actuate', { params: { path: { gateId } }, body: { reason } }),
  );
}

/** Every gate's relay state and the relay drivers' own state. */
export function loadHardwareStatus(): Promise<HardwareStatus> {
  return call(api.GET('/api/hardware/status'));
}
