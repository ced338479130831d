import type { Core } from '../../core.js';

export class MovementService {
  constructor(private readonly core: Core) {}
}
