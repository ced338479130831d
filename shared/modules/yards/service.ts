import type { Core } from '../../core.js';

export class YardService {
  constructor(private readonly core: Core) {}
}
