/**
 * WS-Discovery through node-onvif's startProbe(). The module exports one singleton with one UDP
 * socket and one result table, so two probes at once would clobber each other: one probe runs at a
 * time, callers that arrive while it runs share its answers, and a probe to a different address
 * waits its turn.
 */
import onvif from 'node-onvif';
import { CameraError, type DiscoveredCamera } from './types.js';

/** ONVIF's WS-Discovery multicast group and port. */
export const WS_DISCOVERY_ADDRESS = '239.255.255.250';
export const WS_DISCOVERY_PORT = 3702;

interface RunningProbe {
  target: string;
  answers: Promise<onvif.ProbeResult[]>;
}

let running: RunningProbe | null = null;

export async function probeCameras(
  address: string,
  port: number,
  timeoutMs: number,
): Promise<DiscoveredCamera[]> {
  const target = `${address}:${port}`;
  while (running && running.target !== target) await running.answers.catch(() => undefined);
  if (!running) {
    const probe: RunningProbe = { target, answers: startProbe(address, port, timeoutMs) };
    running = probe;
    void probe.answers.finally(() => {
      if (running === probe) running = null;
    });
  }
  return (await running.answers).map(toDiscoveredCamera);
}

async function startProbe(address: string, port: number, timeoutMs: number): Promise<onvif.ProbeResult[]> {
  onvif._MULTICAST_ADDRESS = address;
  onvif._PORT = port;
  onvif._DISCOVERY_WAIT = timeoutMs;
  // node-onvif sends 3 device types x _DISCOVERY_RETRY_MAX probes, one per interval, and its send loop
  // does not stop cleanly if the wait ends first: spread them over the first half of the wait.
  const datagrams = 3 * onvif._DISCOVERY_RETRY_MAX;
  onvif._DISCOVERY_INTERVAL = Math.max(1, Math.min(150, Math.floor(timeoutMs / 2 / datagrams)));
  try {
    return await onvif.startProbe();
  } catch (err) {
    const code = (err as { code?: string }).code ?? (err instanceof Error ? err.message : String(err));
    throw new CameraError('unreachable', `Could not open a UDP socket for the WS-Discovery probe (${code}).`);
  }
}

function toDiscoveredCamera(probe: onvif.ProbeResult): DiscoveredCamera {
  // Cameras list several addresses (IPv4, IPv6 link-local); an IPv4 http one is the one to register.
  const xaddr =
    probe.xaddrs.find((x) => /^http:\/\/\d{1,3}(\.\d{1,3}){3}[:/]/.test(x)) ??
    probe.xaddrs.find((x) => x.startsWith('http')) ??
    probe.xaddrs[0] ??
    '';
  return {
    xaddr,
    urn: probe.urn,
    name: probe.name ? decodeScope(probe.name) : null,
    hardware: probe.hardware ? decodeScope(probe.hardware) : null,
    scopes: probe.scopes,
  };
}

/** Scope values are URI segments: cameras percent-encode spaces and punctuation. */
function decodeScope(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
