import type { Core } from '../../core.js';

export class DashboardService {
  constructor(private readonly core: Core) {}
}
