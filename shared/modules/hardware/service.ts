import type { Core } from '../../core.js';

export class HardwareService {
  constructor(private readonly core: Core) {}
}
