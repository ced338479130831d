import type { Core } from '../../core.js';

export class CarrierService {
  constructor(private readonly core: Core) {}
}
