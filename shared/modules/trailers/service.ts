import type { Core } from '../../core.js';

export class TrailerService {
  constructor(private readonly core: Core) {}
}
