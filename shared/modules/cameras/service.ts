import { assertCanSeeYard, type Principal, visibleOr404, yardFilter } from '../../auth/principal.js';
import type { OnvifTarget } from '../../cameras/types.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { AttachmentService } from '../attachments/service.js';
import { keepsSecret } from '../integrations/secrets.js';
import type { IntegrationService } from '../integrations/service.js';
import { cameraOut } from './camera-out.js';
import { GateBinding } from './gate-binding.js';
import { assertPasswordFollowsXaddr, OnvifDevices, type OnvifFields, onvifColumns } from './onvif-devices.js';
import type { CameraPicture, OnvifReach } from './onvif-reach.js';
import { CameraRepo, type CameraRow } from './repo.js';
import type { CameraCreateT, CameraListQueryT, CameraOutT, CameraPatchT } from './schema.js';
import { CameraSnapshots, type GateSnapshotResult } from './snapshots.js';

export type { GateSnapshotResult } from './snapshots.js';

export type CameraDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'log' | 'cameras'> & {
  /** Provider cameras and pictures, the camera timeout and the outbound address policy. */
  integrations: Pick<
    IntegrationService,
    'snapshot' | 'timeoutMs' | 'devicePolicy' | 'providerCameras' | 'summaries' | 'summary'
  >;
  /** A picture kept is an attachment of its camera. */
  attachments: Pick<AttachmentService, 'storeBuffer'>;
  /** Whether this app calls ONVIF cameras itself or through their site's edge (onvif-reach.ts). */
  onvifReach: OnvifReach;
};

/**
 * Yard cameras: ONVIF devices (edge) and provider cameras (through an integration). Registration
 * (here) reaches the camera unless verify is false; pictures are taken now, with a timeout
 * (snapshots.ts); a camera's gate is kept in step with the gate's camera list (gate-binding.ts).
 */
export class CameraService {
  private readonly repo: CameraRepo;
  private readonly onvif: OnvifDevices;
  private readonly snapshots: CameraSnapshots;
  private readonly binding: GateBinding;

  constructor(private readonly deps: CameraDeps) {
    this.repo = new CameraRepo(deps.kysely);
    this.onvif = new OnvifDevices(deps);
    this.snapshots = new CameraSnapshots({ ...deps, onvif: this.onvif });
    this.binding = new GateBinding(deps);
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
    if (input.gateId) await this.binding.assertGateOfYard(this.deps.kysely, input.yardId, input.gateId);

    let onvif: OnvifFields | undefined;
    if (input.onvif) {
      await this.onvif.assertXaddrAllowed(input.onvif.xaddr);
      const { xaddr, username, password, profileToken } = input.onvif;
      onvif = await this.onvifFields({ xaddr, username, password }, profileToken, input.verify);
    }
    if (input.provider) await this.checkProvider(input.provider, input.verify);

    const now = this.deps.clock.now();
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      const camera = await this.deps.changes.insert(trx, 'camera', {
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
      return input.gateId ? this.binding.moveToGate(trx, camera, input.gateId) : camera;
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
    if (patch.gateId) await this.binding.assertGateOfYard(this.deps.kysely, current.yardId, patch.gateId);
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
      await this.onvif.assertXaddrAllowed(patch.onvif.xaddr);
    }
    let onvif: OnvifFields | undefined;
    if (patch.onvif && Object.keys(patch.onvif).length > 0) {
      const target = {
        xaddr: patch.onvif.xaddr ?? current.onvifXaddr!,
        username: patch.onvif.username ?? current.onvifUsername ?? '',
        password: keepsSecret(patch.onvif.password) ? (current.onvifPassword ?? '') : patch.onvif.password!,
      };
      const profileToken = patch.onvif.profileToken ?? current.onvifProfileToken ?? undefined;
      onvif = await this.onvifFields(target, profileToken, patch.verify);
    }
    let provider: { integrationId: string; providerCameraId: string } | undefined;
    if (patch.provider && Object.keys(patch.provider).length > 0) {
      provider = {
        integrationId: patch.provider.integrationId ?? current.integrationId!,
        providerCameraId: patch.provider.providerCameraId ?? current.providerCameraId!,
      };
      await this.checkProvider(provider, patch.verify);
    }

    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      const camera = await this.deps.changes.update(
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
      return this.binding.moveToGate(trx, camera, patch.gateId);
    });
    return cameraOut(row);
  }

  async delete(id: string, principal: Principal): Promise<void> {
    const current = await this.visibleRow(id, principal);
    this.assertOwnedHere(current, current.gateId === null ? undefined : null);
    await this.deps.kysely.transaction().execute(async (trx) => {
      const camera = await new CameraRepo(trx).byId(id);
      if (!camera) throw new NotFoundError('Camera', id);
      if (camera.gateId) await this.binding.moveToGate(trx, camera, null);
      await this.deps.changes.delete(trx, 'camera', id);
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
  ): Promise<CameraPicture> {
    return this.snapshots.forCaller(await this.visibleRow(id, principal), principal, opts.store === true);
  }

  /** Edge: a picture for a cloud command, stored as made by the cloud user (who passed the scope checks there). */
  async snapshotFor(
    id: string,
    creator: Pick<Principal, 'id' | 'kind'>,
    opts: { store: boolean },
  ): Promise<CameraPicture> {
    const camera = await this.repo.byId(id);
    if (!camera) throw new NotFoundError('Camera', id);
    return this.snapshots.take(camera, { id: creator.id, kind: creator.kind, yardIds: null }, opts.store);
  }

  /**
   * One picture per enabled camera of the gate, all at once, each within timeoutMs, stored as
   * attachments of its camera. Never throws for a camera: a failure is reported in its result.
   */
  async gateSnapshots(gateId: string, timeoutMs: number): Promise<GateSnapshotResult[]> {
    const cameras = (await this.repo.ofGate(gateId)).filter((c) => c.enabled === 1);
    return this.snapshots.forMovement(cameras, timeoutMs);
  }

  /** ONVIF WS-Discovery on this app's LAN (409 edge-only where there is none), with the cameras registered at each address. */
  async discover(timeoutMs: number) {
    this.deps.onvifReach.assertOnLan('Discovery probes the yard LAN; run it on the edge of that yard.');
    const found = await this.onvif.discover(timeoutMs);
    const registered = await this.repo.byXaddr(found.map((f) => f.xaddr));
    return found.map((f) => ({
      ...f,
      registeredCameraIds: registered.filter((r) => r.onvifXaddr === f.xaddr).map((r) => r.id),
    }));
  }

  async providers() {
    const integrations = await this.deps.integrations.summaries();
    return this.deps.cameras.providers.map((k) => ({
      kind: k.kind,
      title: k.title,
      description: k.description,
      integrations: integrations
        .filter((i) => i.kind === k.kind)
        .map((i) => ({ id: i.id, name: i.name, enabled: i.enabled === 1 })),
    }));
  }

  /** See gate-binding.ts (the gate's camera list is written by the caller, yards' gate service). */
  bindToGate(trx: Kdb, gate: { id: string; yardId: string }, cameraIds: readonly string[]): Promise<void> {
    return this.binding.bindToGate(trx, gate, cameraIds);
  }

  /** Before a gate is deleted: its cameras stay registered, bound to no gate. */
  unbindGate(trx: Kdb, gateId: string): Promise<void> {
    return this.binding.unbindGate(trx, gateId);
  }

  /** With verify, what the device says; without, what was given (the snapshot URI is learnt later). */
  private async onvifFields(
    target: OnvifTarget,
    profileToken: string | undefined,
    verify: boolean,
  ): Promise<OnvifFields> {
    if (verify) return this.onvif.read(target, profileToken);
    return { ...target, profileToken: profileToken ?? null, snapshotUri: null, deviceInfo: null };
  }

  private async checkProvider(ref: { integrationId: string; providerCameraId: string }, verify: boolean) {
    const integration = await this.deps.integrations.summary(ref.integrationId);
    if (!integration) {
      throw new ValidationError([
        { path: 'body.provider.integrationId', message: 'no integration with this id' },
      ]);
    }
    if (!verify) return;
    const cameras = await this.deps.integrations.providerCameras(ref.integrationId);
    if (!cameras.some((c) => c.id === ref.providerCameraId)) {
      throw new ValidationError([
        {
          path: 'body.provider.providerCameraId',
          message: `integration ${integration.name} has no camera with this id`,
        },
      ]);
    }
  }

  /**
   * ONVIF cameras are their edge's, provider cameras the cloud's (ownership.ts): the other side
   * answers 409 before any camera or provider is called. Moving a camera to or off a gate
   * (`gateId` given, null = off) also edits that gate's camera list, which only the edge may write.
   */
  private assertOwnedHere(camera: { source: string; yardId: string }, gateId?: string | null): void {
    this.deps.changes.assertMayWrite('camera', camera);
    if (gateId !== undefined) this.deps.changes.assertMayWrite('gate', { yardId: camera.yardId });
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
