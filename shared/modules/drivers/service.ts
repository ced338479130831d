import type { Core } from '../../core.js';

export class DriverService {
  constructor(private readonly core: Core) {}
}
