import { assertCanSeeYard, type Principal, visibleOr404, yardFilter } from '../../auth/principal.js';
import type { DeviceCallOptions, OnvifDeviceInfo, OnvifTarget, Snapshot } from '../../cameras/types.js';
import { CameraError } from '../../cameras/types.js';
import { toIso } from '../../clock.js';
import type { Core } from '../../core.js';
import type { Kdb } from '../../db/database.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import {
  AppError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  ValidationError,
} from '../../http/errors.js';
import { newId } from '../../ids.js';
import { commandAtSiteOfYard, requestedBy, SnapshotResult } from '../../sync/commands.js';
import type { Creator } from '../attachments/service.js';
import { refusedAddresses } from '../integrations/addresses.js';
import { keepsSecret, resendMessage, SECRET_MASK, secretsToResend } from '../integrations/secrets.js';
import { cameraProblem } from './camera-errors.js';
import { CameraRepo, type CameraRow } from './repo.js';
import type { CameraCreateT, CameraListQueryT, CameraOutT, CameraPatchT } from './schema.js';

/** What a movement's cameras gave: an attachment per picture taken, the reason for each one missed. */
export interface GateSnapshotResult {
  cameraId: string;
  cameraName: string;
  attachmentId: string | null;
  error: string | null;
}

/**
 * Yard cameras: ONVIF devices (edge) and provider cameras (through an integration). Registration
 * reaches the camera unless verify is false; snapshots go to the camera now, with a timeout.
 */
export class CameraService {
  readonly repo: CameraRepo;

  constructor(private readonly core: Core) {
    this.repo = new CameraRepo(core.kysely);
  }

  async list(query: CameraListQueryT, principal: Principal) {
    const yardIds = yardFilter(principal, query.yardId) ?? undefined;
    const afterId = query.cursor ? String(decodeCursor(query.cursor, 1)[0]) : undefined;
    const rows = await this.repo.list({ ...query, afterId, yardIds });
    return toPage(rows, query.limit, cameraOut, (r) => [r.id]);
  }

  async get(id: string, principal: Principal): Promise<CameraOutT> {
    return cameraOut(await this.visibleRow(id, principal));
  }

  async create(input: CameraCreateT, principal: Principal): Promise<CameraOutT> {
    assertCanSeeYard(principal, input.yardId);
    this.assertOwnedHere({ source: input.onvif ? 'onvif' : 'provider', yardId: input.yardId }, input.gateId);
    if (!(await this.repo.yard(input.yardId))) throw new NotFoundError('Yard', input.yardId);
    await this.assertNameFree(input.yardId, input.name);
    if (input.gateId) await this.gateOfYard(this.core.kysely, input.yardId, input.gateId);

    let onvif: OnvifFields | undefined;
    if (input.onvif) {
      await this.assertXaddrAllowed(input.onvif.xaddr);
      const target = {
        xaddr: input.onvif.xaddr,
        username: input.onvif.username,
        password: input.onvif.password,
      };
      onvif = input.verify
        ? await this.readOnvif(target, input.onvif.profileToken)
        : { ...target, profileToken: input.onvif.profileToken ?? null, snapshotUri: null, deviceInfo: null };
    }
    if (input.provider) await this.checkProvider(input.provider, input.verify);

    const now = this.core.clock.now();
    const row = await this.core.kysely.transaction().execute(async (trx) => {
      const camera = await this.core.changes.insert(trx, 'camera', {
        id: newId(),
        yardId: input.yardId,
        name: input.name,
        gateId: null,
        source: onvif ? 'onvif' : 'provider',
        ...onvifColumns(onvif),
        integrationId: input.provider?.integrationId ?? null,
        providerCameraId: input.provider?.providerCameraId ?? null,
        enabled: input.enabled ? 1 : 0,
        createdAt: now,
        updatedAt: now,
      });
      return input.gateId ? this.moveToGate(trx, camera, input.gateId) : camera;
    });
    return cameraOut(row);
  }

  async update(
    id: string,
    patch: CameraPatchT,
    principal: Principal,
    expectedVersion?: number,
  ): Promise<CameraOutT> {
    const current = await this.visibleRow(id, principal);
    this.assertOwnedHere(current, patch.gateId === current.gateId ? undefined : patch.gateId);
    if (patch.name !== undefined) await this.assertNameFree(current.yardId, patch.name, id);
    if (patch.gateId) await this.gateOfYard(this.core.kysely, current.yardId, patch.gateId);
    if (patch.onvif && current.source !== 'onvif') {
      throw new BadRequestError(
        'wrong-source',
        'This camera comes from a provider; it has no ONVIF settings.',
      );
    }
    if (patch.provider && current.source !== 'provider') {
      throw new BadRequestError('wrong-source', 'This is an ONVIF camera; it has no provider settings.');
    }

    if (patch.onvif?.xaddr !== undefined) {
      assertPasswordFollowsXaddr(current, patch.onvif);
      await this.assertXaddrAllowed(patch.onvif.xaddr);
    }
    let onvif: OnvifFields | undefined;
    if (patch.onvif && Object.keys(patch.onvif).length > 0) {
      const target = {
        xaddr: patch.onvif.xaddr ?? current.onvifXaddr!,
        username: patch.onvif.username ?? current.onvifUsername ?? '',
        password: keepsSecret(patch.onvif.password) ? (current.onvifPassword ?? '') : patch.onvif.password!,
      };
      const profileToken = patch.onvif.profileToken ?? current.onvifProfileToken ?? undefined;
      onvif = patch.verify
        ? await this.readOnvif(target, profileToken)
        : { ...target, profileToken: profileToken ?? null, snapshotUri: null, deviceInfo: null };
    }
    let provider: { integrationId: string; providerCameraId: string } | undefined;
    if (patch.provider && Object.keys(patch.provider).length > 0) {
      provider = {
        integrationId: patch.provider.integrationId ?? current.integrationId!,
        providerCameraId: patch.provider.providerCameraId ?? current.providerCameraId!,
      };
      await this.checkProvider(provider, patch.verify);
    }

    const row = await this.core.kysely.transaction().execute(async (trx) => {
      const camera = await this.core.changes.update(
        trx,
        'camera',
        id,
        {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.enabled !== undefined ? { enabled: patch.enabled ? 1 : 0 } : {}),
          ...(onvif ? onvifColumns(onvif) : {}),
          ...(provider ?? {}),
        },
        expectedVersion === undefined ? {} : { expectedVersion },
      );
      if (!camera) throw new NotFoundError('Camera', id);
      if (patch.gateId === undefined || patch.gateId === camera.gateId) return camera;
      return this.moveToGate(trx, camera, patch.gateId);
    });
    return cameraOut(row);
  }

  async delete(id: string, principal: Principal): Promise<void> {
    const current = await this.visibleRow(id, principal);
    this.assertOwnedHere(current, current.gateId === null ? undefined : null);
    await this.core.kysely.transaction().execute(async (trx) => {
      const camera = await new CameraRepo(trx).byId(id);
      if (!camera) throw new NotFoundError('Camera', id);
      if (camera.gateId) await this.moveToGate(trx, camera, null);
      await this.core.changes.delete(trx, 'camera', id);
    });
  }

  /**
   * A picture from the camera now; with store, also kept as an attachment of the camera. At the
   * cloud an ONVIF camera is reached through its edge (a down/cmd command; with store the attachment
   * is made at the edge and its row arrives by sync); provider cameras are called from here.
   */
  async snapshot(
    id: string,
    principal: Principal,
    opts: { store?: boolean | undefined },
  ): Promise<{ snapshot: Snapshot; attachmentId: string | null }> {
    const camera = await this.visibleRow(id, principal);
    if (this.core.config.role === 'cloud' && camera.source === 'onvif') {
      return this.snapshotAtSite(camera, principal, opts.store === true);
    }
    return this.snapshotOf(camera, principal, opts.store === true);
  }

  /** Edge: a picture for a cloud command, stored as made by the cloud user (who passed the scope checks there). */
  async snapshotFor(
    id: string,
    creator: Pick<Principal, 'id' | 'kind'>,
    opts: { store: boolean },
  ): Promise<{ snapshot: Snapshot; attachmentId: string | null }> {
    const camera = await this.repo.byId(id);
    if (!camera) throw new NotFoundError('Camera', id);
    return this.snapshotOf(camera, { id: creator.id, kind: creator.kind, yardIds: null }, opts.store);
  }

  private async snapshotOf(
    camera: CameraRow,
    creator: NonNullable<Creator>,
    store: boolean,
  ): Promise<{ snapshot: Snapshot; attachmentId: string | null }> {
    if (!camera.enabled)
      throw new ConflictError('camera-disabled', `Camera ${camera.name} is disabled; enable it first.`);
    const snapshot = await this.take(camera, await this.core.services.integrations.timeoutMs());
    if (!store) return { snapshot, attachmentId: null };
    const attachment = await this.core.services.attachments.storeBuffer(
      snapshot.bytes,
      { filename: snapshotName(camera, this.core.clock.now()), refType: 'camera', refId: camera.id },
      creator,
    );
    return { snapshot, attachmentId: attachment.id };
  }

  /** Cloud: the camera's edge takes the picture; the bytes come back base64 in its answer. */
  private async snapshotAtSite(camera: CameraRow, principal: Principal, store: boolean) {
    const args = { cameraId: camera.id, store, requestedBy: requestedBy(principal) };
    const result = await commandAtSiteOfYard(this.core, camera.yardId, 'snapshot', args, SnapshotResult);
    const bytes = Buffer.from(result.base64, 'base64');
    if (bytes.length !== result.bytes) {
      throw new AppError(
        502,
        'bad-site-answer',
        'Bad answer from the site',
        `The edge sent ${bytes.length} of the picture's ${result.bytes} bytes; try again.`,
      );
    }
    const snapshot: Snapshot = { bytes, contentType: result.contentType, elapsedMs: result.elapsedMs };
    return { snapshot, attachmentId: result.attachmentId };
  }

  /**
   * One picture per enabled camera of the gate, all at once, each within timeoutMs, stored as
   * attachments of its camera. Never throws for a camera: a failure is reported in its result.
   */
  async gateSnapshots(gateId: string, timeoutMs: number): Promise<GateSnapshotResult[]> {
    const cameras = (await this.repo.ofGate(gateId)).filter((c) => c.enabled === 1);
    return Promise.all(
      cameras.map(async (camera): Promise<GateSnapshotResult> => {
        const result = { cameraId: camera.id, cameraName: camera.name };
        try {
          const snapshot = await this.take(camera, timeoutMs);
          const attachment = await this.core.services.attachments.storeBuffer(
            snapshot.bytes,
            { filename: snapshotName(camera, this.core.clock.now()), refType: 'camera', refId: camera.id },
            null,
          );
          return { ...result, attachmentId: attachment.id, error: null };
        } catch (err) {
          const problem = err instanceof AppError ? err : cameraProblem(err, `Camera ${camera.name}`);
          if (!(err instanceof AppError) && !(err instanceof CameraError)) {
            this.core.log.error({ err, cameraId: camera.id }, 'snapshot for a movement failed');
          }
          return { ...result, attachmentId: null, error: `${problem.code}: ${problem.detail}` };
        }
      }),
    );
  }

  async discover(timeoutMs: number) {
    const found = await this.core.cameras.onvif.discover({ timeoutMs });
    const registered = await this.repo.byXaddr(found.map((f) => f.xaddr));
    return found.map((f) => ({
      ...f,
      registeredCameraIds: registered.filter((r) => r.onvifXaddr === f.xaddr).map((r) => r.id),
    }));
  }

  async providers() {
    const integrations = await this.core.services.integrations.repo.summaries();
    return this.core.cameras.providers.map((k) => ({
      kind: k.kind,
      title: k.title,
      description: k.description,
      integrations: integrations
        .filter((i) => i.kind === k.kind)
        .map((i) => ({ id: i.id, name: i.name, enabled: i.enabled === 1 })),
    }));
  }

  /**
   * Makes `cameraIds` the cameras of the gate (the caller writes gate.camera_ids): each must be in the
   * gate's yard; a camera taken from another gate leaves that gate's list; cameras dropped are unbound.
   */
  async bindToGate(
    trx: Kdb,
    gate: { id: string; yardId: string },
    cameraIds: readonly string[],
  ): Promise<void> {
    const repo = new CameraRepo(trx);
    const cameras = await repo.byIds(cameraIds);
    for (const id of cameraIds) {
      const camera = cameras.find((c) => c.id === id);
      if (!camera || camera.yardId !== gate.yardId) throw new NotFoundError('Camera in this yard', id);
    }
    for (const camera of await repo.ofGate(gate.id)) {
      if (!cameraIds.includes(camera.id))
        await this.core.changes.update(trx, 'camera', camera.id, { gateId: null });
    }
    for (const camera of cameras) {
      if (camera.gateId === gate.id) continue;
      if (camera.gateId)
        await this.editGateList(trx, camera.gateId, (ids) => ids.filter((x) => x !== camera.id));
      await this.core.changes.update(trx, 'camera', camera.id, { gateId: gate.id });
    }
  }

  /** Before a gate is deleted: its cameras stay registered, bound to no gate. */
  async unbindGate(trx: Kdb, gateId: string): Promise<void> {
    for (const camera of await new CameraRepo(trx).ofGate(gateId)) {
      await this.core.changes.update(trx, 'camera', camera.id, { gateId: null });
    }
  }

  private async take(camera: CameraRow, timeoutMs: number): Promise<Snapshot> {
    if (camera.source === 'provider') {
      return this.core.services.integrations.snapshot(
        camera.integrationId!,
        camera.providerCameraId!,
        timeoutMs,
      );
    }
    if (this.core.config.role === 'cloud') {
      // The camera is on the yard's LAN: only its edge reaches it (snapshot() goes through the edge).
      throw new ConflictError('edge-only', `Camera ${camera.name} is reached through the edge of its site.`);
    }
    const target = onvifTarget(camera);
    try {
      let snapshotUri = camera.onvifSnapshotUri;
      const opts = await this.callOptions(timeoutMs);
      if (!snapshotUri) snapshotUri = await this.learnSnapshotUri(camera, target, opts);
      return await this.core.cameras.onvif.snapshot({ ...target, snapshotUri }, opts);
    } catch (err) {
      throw cameraProblem(err, `Camera ${camera.name}`);
    }
  }

  /** A camera registered with verify: false gets its snapshot URI the first time it is reached. */
  private async learnSnapshotUri(
    camera: CameraRow,
    target: OnvifTarget,
    opts: DeviceCallOptions,
  ): Promise<string> {
    const info = await this.core.cameras.onvif.describe(target, opts);
    const { profile } = pickProfile(info, camera.onvifProfileToken ?? undefined);
    await this.core.changes.update(this.core.kysely, 'camera', camera.id, {
      onvifProfileToken: profile.token,
      onvifSnapshotUri: profile.snapshotUri,
      deviceInfo: JSON.stringify(deviceInfo(info)),
    });
    return profile.snapshotUri!;
  }

  private async readOnvif(target: OnvifTarget, profileToken: string | undefined): Promise<OnvifFields> {
    let info: OnvifDeviceInfo;
    try {
      info = await this.core.cameras.onvif.describe(
        target,
        await this.callOptions(await this.core.services.integrations.timeoutMs()),
      );
    } catch (err) {
      throw cameraProblem(err, `The camera at ${target.xaddr}`);
    }
    const { profile, error } = pickProfile(info, profileToken);
    if (error) throw error;
    return {
      ...target,
      profileToken: profile.token,
      snapshotUri: profile.snapshotUri,
      deviceInfo: deviceInfo(info),
    };
  }

  private async callOptions(timeoutMs: number): Promise<DeviceCallOptions> {
    return { timeoutMs, policy: await this.core.services.integrations.devicePolicy() };
  }

  /** The outbound address policy for a camera address being stored (400 on body.onvif.xaddr). */
  private async assertXaddrAllowed(xaddr: string): Promise<void> {
    const policy = await this.core.services.integrations.devicePolicy();
    const errors = await refusedAddresses([{ path: ['xaddr'], url: xaddr }], 'body.onvif', policy);
    if (errors.length > 0)
      throw new ValidationError(errors, 'The camera address is refused; nothing was stored.');
  }

  private async checkProvider(ref: { integrationId: string; providerCameraId: string }, verify: boolean) {
    const integration = await this.core.services.integrations.repo.byId(ref.integrationId);
    if (!integration) {
      throw new ValidationError([
        { path: 'body.provider.integrationId', message: 'no integration with this id' },
      ]);
    }
    if (!verify) return;
    const cameras = await this.core.services.integrations.providerCameras(ref.integrationId);
    if (!cameras.some((c) => c.id === ref.providerCameraId)) {
      throw new ValidationError([
        {
          path: 'body.provider.providerCameraId',
          message: `integration ${integration.name} has no camera with this id`,
        },
      ]);
    }
  }

  /** Sets the camera's gate and keeps both gates' camera lists equal to it. */
  private async moveToGate(trx: Kdb, camera: CameraRow, gateId: string | null): Promise<CameraRow> {
    if (camera.gateId)
      await this.editGateList(trx, camera.gateId, (ids) => ids.filter((x) => x !== camera.id));
    if (gateId)
      await this.editGateList(trx, gateId, (ids) => [...ids.filter((x) => x !== camera.id), camera.id]);
    const updated = await this.core.changes.update(trx, 'camera', camera.id, { gateId });
    return updated ?? camera;
  }

  private async editGateList(trx: Kdb, gateId: string, edit: (ids: string[]) => string[]): Promise<void> {
    const gate = await new CameraRepo(trx).gate(gateId);
    if (!gate) return;
    const before = JSON.parse(gate.cameraIds) as string[];
    const after = edit(before);
    if (after.join() !== before.join()) {
      await this.core.changes.update(trx, 'gate', gateId, { cameraIds: JSON.stringify(after) });
    }
  }

  private async gateOfYard(db: Kdb, yardId: string, gateId: string): Promise<void> {
    const gate = await new CameraRepo(db).gate(gateId);
    if (!gate || gate.yardId !== yardId) throw new NotFoundError('Gate in this yard', gateId);
  }

  /**
   * ONVIF cameras are their edge's, provider cameras the cloud's (ownership.ts): the other side
   * answers 409 before any camera or provider is called. Moving a camera to or off a gate
   * (`gateId` given, null = off) also edits that gate's camera list, which only the edge may write.
   */
  private assertOwnedHere(camera: { source: string; yardId: string }, gateId?: string | null): void {
    this.core.changes.assertMayWrite('camera', camera);
    if (gateId !== undefined) this.core.changes.assertMayWrite('gate', { yardId: camera.yardId });
  }

  private async visibleRow(id: string, principal: Principal): Promise<CameraRow> {
    return visibleOr404(principal, await this.repo.byId(id), 'Camera', id);
  }

  private async assertNameFree(yardId: string, name: string, exceptId?: string): Promise<void> {
    const existing = await this.repo.byName(yardId, name);
    if (existing && existing.id !== exceptId) {
      throw new ConflictError('duplicate', `The yard already has a camera named ${existing.name}.`, {
        existingId: existing.id,
      });
    }
  }
}

/**
 * The stored ONVIF password goes only to the address it was given with: a new xaddr on another
 * origin needs the password sent again (secrets.ts), else 400 on body.onvif.password.
 */
function assertPasswordFollowsXaddr(current: CameraRow, patch: NonNullable<CameraPatchT['onvif']>): void {
  const carried = keepsSecret(patch.password) && current.onvifPassword ? ['onvif.password'] : [];
  const { moved, paths } = secretsToResend([current.onvifXaddr ?? ''], [patch.xaddr ?? ''], carried);
  if (paths.length === 0) return;
  throw new ValidationError(
    [{ path: 'body.onvif.password', message: resendMessage(moved), code: 'secret-required' }],
    'The camera address changed: send its password again; nothing was changed.',
  );
}

interface OnvifFields extends OnvifTarget {
  profileToken: string | null;
  snapshotUri: string | null;
  deviceInfo: ReturnType<typeof deviceInfo> | null;
}

function onvifColumns(onvif: OnvifFields | undefined) {
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
  return { profile, error: undefined };
}

function deviceInfo(info: OnvifDeviceInfo) {
  return {
    manufacturer: info.manufacturer,
    model: info.model,
    firmwareVersion: info.firmwareVersion,
    serialNumber: info.serialNumber,
  };
}

function snapshotName(camera: CameraRow, at: number): string {
  const safe = camera.name.replace(/[^A-Za-z0-9_-]+/g, '-');
  return `snapshot-${safe}-${toIso(at).replace(/[:.]/g, '-')}.jpg`;
}

export function cameraOut(row: CameraRow): CameraOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    name: row.name,
    gateId: row.gateId,
    enabled: row.enabled === 1,
    source: row.source,
    onvif:
      row.source === 'onvif'
        ? {
            xaddr: row.onvifXaddr!,
            username: row.onvifUsername ?? '',
            password: row.onvifPassword ? SECRET_MASK : null,
            profileToken: row.onvifProfileToken,
            snapshotUri: row.onvifSnapshotUri,
            device: row.deviceInfo
              ? (JSON.parse(row.deviceInfo) as NonNullable<CameraOutT['onvif']>['device'])
              : null,
          }
        : null,
    provider:
      row.source === 'provider'
        ? { integrationId: row.integrationId!, providerCameraId: row.providerCameraId! }
        : null,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}
