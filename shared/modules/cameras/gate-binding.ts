import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { NotFoundError } from '../../http/errors.js';
import { CameraRepo, type CameraRow } from './repo.js';

/**
 * A camera's gate and the gate's camera list (gate.camera_ids) say the same thing: every change of
 * one edits the other, in the caller's transaction.
 */
export class GateBinding {
  constructor(private readonly deps: Pick<CoreParts, 'changes'>) {}

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
        await this.deps.changes.update(trx, 'camera', camera.id, { gateId: null });
    }
    for (const camera of cameras) {
      if (camera.gateId === gate.id) continue;
      if (camera.gateId)
        await this.editGateList(trx, camera.gateId, (ids) => ids.filter((x) => x !== camera.id));
      await this.deps.changes.update(trx, 'camera', camera.id, { gateId: gate.id });
    }
  }

  /** Before a gate is deleted: its cameras stay registered, bound to no gate. */
  async unbindGate(trx: Kdb, gateId: string): Promise<void> {
    for (const camera of await new CameraRepo(trx).ofGate(gateId)) {
      await this.deps.changes.update(trx, 'camera', camera.id, { gateId: null });
    }
  }

  /** Sets the camera's gate (null = none) and keeps both gates' camera lists equal to it. */
  async moveToGate(trx: Kdb, camera: CameraRow, gateId: string | null): Promise<CameraRow> {
    if (camera.gateId)
      await this.editGateList(trx, camera.gateId, (ids) => ids.filter((x) => x !== camera.id));
    if (gateId)
      await this.editGateList(trx, gateId, (ids) => [...ids.filter((x) => x !== camera.id), camera.id]);
    const updated = await this.deps.changes.update(trx, 'camera', camera.id, { gateId });
    return updated ?? camera;
  }

  /** 404 unless the gate exists and is in the yard. */
  async assertGateOfYard(db: Kdb, yardId: string, gateId: string): Promise<void> {
    const gate = await new CameraRepo(db).gate(gateId);
    if (!gate || gate.yardId !== yardId) throw new NotFoundError('Gate in this yard', gateId);
  }

  private async editGateList(trx: Kdb, gateId: string, edit: (ids: string[]) => string[]): Promise<void> {
    const gate = await new CameraRepo(trx).gate(gateId);
    if (!gate) return;
    const before = JSON.parse(gate.cameraIds) as string[];
    const after = edit(before);
    if (after.join() !== before.join()) {
      await this.deps.changes.update(trx, 'gate', gateId, { cameraIds: JSON.stringify(after) });
    }
  }
}
