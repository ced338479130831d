import type { Core } from '../../core.js';

export class TruckService {
  constructor(private readonly core: Core) {}
}
