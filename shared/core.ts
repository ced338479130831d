import type { CoreParts } from './core-parts.js';
import type { Services } from './services.js';

/** The app's parts and its module services, as createApp assembles them (see core-parts.ts). */
export interface Core extends CoreParts {
  services: Services;
}
