import { type Principal, visibleToCarrierOr404 } from '../../../auth/principal.js';
import type { CoreParts } from '../../../core-parts.js';
import { type AppointmentPublicT, readAppointmentPublic } from '../public-view.js';
import { GatePass, type PassFormat, type RenderedPass } from './index.js';

export type GatePassDeps = Pick<CoreParts, 'kysely' | 'clock'>;

/**
 * The gate pass of one appointment for a caller (docs/api.md "Appointments"): served wherever the
 * appointment is (the cloud, a linked edge also offline, a standalone edge), since it only reads.
 */
export class GatePassService {
  /** The renderer, also for what sends a pass elsewhere (mail attachments). */
  readonly passes: GatePass;

  constructor(private readonly deps: GatePassDeps) {
    this.passes = new GatePass(deps);
  }

  /**
   * The appointment as its pass shows it; 404 when absent, in a yard outside the caller's yards or,
   * for a carrier user, of another carrier (the same 404: as if it did not exist).
   */
  async visible(principal: Principal, id: string): Promise<AppointmentPublicT> {
    const p = await readAppointmentPublic(this.deps.kysely, id);
    const row = p ? { ...p, yardId: p.yard.id, carrierId: p.carrier.id } : undefined;
    const { yardId: _y, carrierId: _c, ...pass } = visibleToCarrierOr404(principal, row, 'Appointment', id);
    return pass;
  }

  async render(
    principal: Principal,
    id: string,
    format: PassFormat,
  ): Promise<{ pass: RenderedPass; version: number }> {
    const p = await this.visible(principal, id);
    return { pass: await this.passes.render(p, format), version: p.version };
  }
}
