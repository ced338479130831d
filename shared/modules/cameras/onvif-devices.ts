import type { DeviceCallOptions, OnvifDeviceInfo, OnvifTarget, Snapshot } from '../../cameras/types.js';
import type { CoreParts } from '../../core-parts.js';
import { AppError, ValidationError } from '../../http/errors.js';
import { refusedAddresses } from '../integrations/addresses.js';
import { keepsSecret, secretsToResend } from '../integrations/secrets.js';
import type { IntegrationService } from '../integrations/service.js';
import { cameraProblem } from './camera-errors.js';
import type { CameraRow } from './repo.js';
import type { CameraPatchT } from './schema.js';

export type OnvifDeviceDeps = Pick<CoreParts, 'kysely' | 'changes' | 'cameras'> & {
  /** The camera timeout and the outbound address policy devices are called under. */
  integrations: Pick<IntegrationService, 'timeoutMs' | 'devicePolicy'>;
};

/** What registration learns of an ONVIF camera (stored in the camera's onvif_* columns). */
export interface OnvifFields extends OnvifTarget {
  profileToken: string | null;
  snapshotUri: string | null;
  deviceInfo: ReturnType<typeof deviceInfo> | null;
}

/**
 * Calls to ONVIF devices on this app's LAN (shared/cameras/onvif.ts does the protocol): reading a
 * camera's profiles at registration, a picture now, discovery; each under the outbound address policy.
 */
export class OnvifDevices {
  constructor(private readonly deps: OnvifDeviceDeps) {}

  /** The device's profile (the one named, else the first with a snapshot URI) and details; verify. */
  async read(target: OnvifTarget, profileToken: string | undefined): Promise<OnvifFields> {
    let info: OnvifDeviceInfo;
    try {
      info = await this.deps.cameras.onvif.describe(
        target,
        await this.callOptions(await this.deps.integrations.timeoutMs()),
      );
    } catch (err) {
      throw cameraProblem(err, `The camera at ${target.xaddr}`);
    }
    const profile = pickProfile(info, profileToken);
    return {
      ...target,
      profileToken: profile.token,
      snapshotUri: profile.snapshotUri,
      deviceInfo: deviceInfo(info),
    };
  }

  /** A picture from the camera now, within timeoutMs; its problem as the API answers it. */
  async snapshot(camera: CameraRow, timeoutMs: number): Promise<Snapshot> {
    const target = onvifTarget(camera);
    try {
      let snapshotUri = camera.onvifSnapshotUri;
      const opts = await this.callOptions(timeoutMs);
      if (!snapshotUri) snapshotUri = await this.learnSnapshotUri(camera, target, opts);
      return await this.deps.cameras.onvif.snapshot({ ...target, snapshotUri }, opts);
    } catch (err) {
      throw cameraProblem(err, `Camera ${camera.name}`);
    }
  }

  discover(timeoutMs: number) {
    return this.deps.cameras.onvif.discover({ timeoutMs });
  }

  /** The outbound address policy for a camera address being stored (400 on body.onvif.xaddr). */
  async assertXaddrAllowed(xaddr: string): Promise<void> {
    const policy = await this.deps.integrations.devicePolicy();
    const errors = await refusedAddresses([{ path: ['xaddr'], url: xaddr }], 'body.onvif', policy);
    if (errors.length > 0)
      throw new ValidationError(errors, 'The camera address is refused; nothing was stored.');
  }

  /** A camera registered with verify: false gets its snapshot URI the first time it is reached. */
  private async learnSnapshotUri(
    camera: CameraRow,
    target: OnvifTarget,
    opts: DeviceCallOptions,
  ): Promise<string> {
    const info = await this.deps.cameras.onvif.describe(target, opts);
    const profile = pickProfile(info, camera.onvifProfileToken ?? undefined);
    await this.deps.changes.update(this.deps.kysely, 'camera', camera.id, {
      onvifProfileToken: profile.token,
      onvifSnapshotUri: profile.snapshotUri,
      deviceInfo: JSON.stringify(deviceInfo(info)),
    });
    return profile.snapshotUri!;
  }

  private async callOptions(timeoutMs: number): Promise<DeviceCallOptions> {
    return { timeoutMs, policy: await this.deps.integrations.devicePolicy() };
  }
}

/**
 * The stored ONVIF password goes only to the address it was given with: a new xaddr on another
 * origin needs the password sent again (secrets.ts), else 400 on body.onvif.password.
 */
export function assertPasswordFollowsXaddr(
  current: CameraRow,
  patch: NonNullable<CameraPatchT['onvif']>,
): void {
  const carried = keepsSecret(patch.password) && current.onvifPassword ? ['onvif.password'] : [];
  const [resend] = secretsToResend(
    { urls: [current.onvifXaddr ?? ''] },
    { urls: [patch.xaddr ?? ''] },
    carried,
  );
  if (!resend) return;
  throw new ValidationError(
    [{ path: 'body.onvif.password', message: resend.message, code: 'secret-required' }],
    'The camera address changed: send its password again; nothing was changed.',
  );
}

export function onvifColumns(onvif: OnvifFields | undefined) {
  return {
    onvifXaddr: onvif?.xaddr ?? null,
    onvifUsername: onvif?.username ?? null,
    onvifPassword: onvif?.password ?? null,
    onvifProfileToken: onvif?.profileToken ?? null,
    onvifSnapshotUri: onvif?.snapshotUri ?? null,
    deviceInfo: onvif?.deviceInfo ? JSON.stringify(onvif.deviceInfo) : null,
  };
}

function onvifTarget(camera: CameraRow): OnvifTarget {
  return {
    xaddr: camera.onvifXaddr!,
    username: camera.onvifUsername ?? '',
    password: camera.onvifPassword ?? '',
  };
}

function pickProfile(info: OnvifDeviceInfo, token: string | undefined) {
  const withSnapshot = info.profiles.filter((p) => p.snapshotUri);
  const profile = token ? info.profiles.find((p) => p.token === token) : withSnapshot[0];
  if (token && !profile) {
    const known = info.profiles.map((p) => p.token).join(', ') || 'none';
    throw new ValidationError([
      {
        path: 'body.onvif.profileToken',
        message: `the camera has no profile ${token}; its profiles: ${known}`,
      },
    ]);
  }
  if (!profile?.snapshotUri) {
    throw new AppError(
      502,
      'camera-bad-response',
      'Camera answered badly',
      'The camera offers no snapshot URI in its media profiles; enable snapshots (JPEG) in its web interface.',
    );
  }
  return profile;
}

function deviceInfo(info: OnvifDeviceInfo) {
  return {
    manufacturer: info.manufacturer,
    model: info.model,
    firmwareVersion: info.firmwareVersion,
    serialNumber: info.serialNumber,
  };
}
