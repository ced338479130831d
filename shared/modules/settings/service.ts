import type { Core } from '../../core.js';

export class SettingsService {
  constructor(private readonly core: Core) {}
}
