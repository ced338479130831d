/**
 * OnvifClient over node-onvif for SOAP (device information, media profiles, stream and snapshot
 * URIs, WS-Discovery) and our own HTTP client for the snapshot bytes: node-onvif's fetchSnapshot
 * sends the password with Basic first, breaks on base64 nonces and shares digest state between
 * cameras, so it is never used.
 */
import onvif from 'node-onvif';
import { assertAddressAllowed, OutboundRefusedError } from '../net/outbound-policy.js';
import { fetchImage } from './http-image.js';
import { probeCameras, WS_DISCOVERY_ADDRESS, WS_DISCOVERY_PORT } from './onvif-discovery.js';
import {
  CameraError,
  type DeviceCallOptions,
  type DiscoveredCamera,
  type OnvifClient,
  type OnvifDeviceInfo,
  type OnvifProfile,
  type OnvifTarget,
  type Snapshot,
} from './types.js';

export interface NodeOnvifClientOptions {
  /** Where WS-Discovery probes go; default ONVIF's multicast group 239.255.255.250. */
  probeAddress?: string;
  /** Default 3702. */
  probePort?: number;
}

export class NodeOnvifClient implements OnvifClient {
  private readonly probeAddress: string;
  private readonly probePort: number;

  constructor(options: NodeOnvifClientOptions = {}) {
    this.probeAddress = options.probeAddress ?? WS_DISCOVERY_ADDRESS;
    this.probePort = options.probePort ?? WS_DISCOVERY_PORT;
  }

  async describe(target: OnvifTarget, opts: DeviceCallOptions): Promise<OnvifDeviceInfo> {
    const where = describeAddress(target.xaddr);
    // node-onvif opens its own connections (no lookup hook), so the address is checked, resolved,
    // just before; fetchImage below checks at connect time.
    try {
      await assertAddressAllowed(target.xaddr, opts.policy);
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw new CameraError('address-refused', err.message);
      throw err;
    }
    let device: onvif.OnvifDevice;
    try {
      // A new device object per call: nothing is shared between cameras or calls.
      device = new onvif.OnvifDevice({ xaddr: target.xaddr, user: target.username, pass: target.password });
    } catch {
      throw new CameraError(
        'unauthorized',
        `${where}: the username or password holds characters ONVIF requests cannot carry (non-ASCII, '<' or '>').`,
      );
    }
    const started = Date.now();
    const init = device.init();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new CameraError(
              'timeout',
              `${where} did not finish answering ONVIF requests within ${opts.timeoutMs} ms; check that it is an ONVIF device and not overloaded.`,
            ),
          ),
        opts.timeoutMs,
      );
    });
    try {
      await Promise.race([init, deadline]);
    } catch (err) {
      // init() keeps running after a timeout (node-onvif cannot cancel); its late failure is not news.
      init.catch(() => undefined);
      throw err instanceof CameraError ? err : onvifError(err, where, Date.now() - started);
    } finally {
      clearTimeout(timer);
    }
    const info = device.getInformation() ?? {};
    return {
      manufacturer: text(info.Manufacturer),
      model: text(info.Model),
      firmwareVersion: text(info.FirmwareVersion),
      serialNumber: text(info.SerialNumber),
      hardwareId: text(info.HardwareId),
      profiles: device.getProfileList().map(toProfile),
    };
  }

  /**
   * Digest only (a camera asking for Basic is refused: nobody chose Basic for it), never
   * node-onvif's fetch. The snapshot URI is the camera's own answer, so it is held to the policy too.
   */
  async snapshot(target: OnvifTarget & { snapshotUri: string }, opts: DeviceCallOptions): Promise<Snapshot> {
    const auth = target.username
      ? { type: 'digest' as const, username: target.username, password: target.password }
      : { type: 'none' as const };
    return fetchImage(target.snapshotUri, { auth, timeoutMs: opts.timeoutMs, policy: opts.policy });
  }

  discover(opts: { timeoutMs: number }): Promise<DiscoveredCamera[]> {
    return probeCameras(this.probeAddress, this.probePort, opts.timeoutMs);
  }
}

function toProfile(p: onvif.DeviceProfile): OnvifProfile {
  const encoder = p.video.encoder;
  const bounds = p.video.source?.bounds;
  const width = encoder?.resolution.width ?? bounds?.width;
  const height = encoder?.resolution.height ?? bounds?.height;
  return {
    token: p.token,
    name: text(p.name) ?? p.token,
    snapshotUri: p.snapshot || null,
    streamUri: p.stream.rtsp || p.stream.http || p.stream.udp || null,
    encoding: text(encoder?.encoding),
    width: Number.isFinite(width) ? (width as number) : null,
    height: Number.isFinite(height) ? (height as number) : null,
  };
}

function text(value: onvif.XmlText): string | null {
  const s = typeof value === 'string' ? value : value?._;
  return s?.trim() ? s.trim() : null;
}

/** The device address for messages: scheme, host and path, never credentials. */
function describeAddress(xaddr: string): string {
  try {
    const url = new URL(xaddr);
    return `${url.origin}${url.pathname}`;
  } catch {
    return 'The camera address';
  }
}

/** node-onvif's SOAP socket timeout; a hang-up after this long was its timeout, not the camera's. */
const SOAP_HTTP_TIMEOUT_MS = onvif._OnvifSoap.HTTP_TIMEOUT;

/**
 * node-onvif reports failures only as Error messages ("Failed to initialize the device: Error:
 * 400 Bad Request - Sender not Authorized", "Network Error: connect ECONNREFUSED ..."), so the kind
 * is read from the message text.
 */
function onvifError(err: unknown, where: string, elapsedMs: number): CameraError {
  const message = err instanceof Error ? err.message : String(err);
  const network = /\b(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)\b/.exec(message);
  if (network) {
    return new CameraError(
      'unreachable',
      `${where} could not be reached (${network[1]}); check that the camera is powered, on the network and at this address.`,
    );
  }
  const status = /\b([1-5]\d\d) [A-Za-z][\w ]*/.exec(message);
  if (/NotAuthori[sz]ed|not authori[sz]ed|\b401\b|Unauthori[sz]ed/i.test(message)) {
    return new CameraError(
      'unauthorized',
      `${where} refused the ONVIF credentials; check the username and password (and that the camera's clock is roughly right).`,
      status ? Number(status[1]) : undefined,
    );
  }
  if (/socket hang up|ECONNRESET/.test(message)) {
    return elapsedMs >= SOAP_HTTP_TIMEOUT_MS
      ? new CameraError('timeout', `${where} stopped answering ONVIF requests.`)
      : new CameraError(
          'bad-response',
          `${where} closed the connection without answering; is this an ONVIF address?`,
        );
  }
  const detail = message.replace(/^Failed to initialize the device: (Error: )?/, '');
  return new CameraError(
    'bad-response',
    `${where} did not answer as an ONVIF camera: ${detail}`,
    status ? Number(status[1]) : undefined,
  );
}
