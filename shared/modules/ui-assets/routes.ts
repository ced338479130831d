import type { Core } from '../../core.js';
import type { RouteRegistrar } from '../../http/routes.js';

export function registerUiAssetRoutes(_r: RouteRegistrar, _core: Core): void {}
