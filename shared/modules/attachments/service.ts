import type { Core } from '../../core.js';

export class AttachmentService {
  constructor(private readonly core: Core) {}
}
