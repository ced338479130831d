import { STAFF } from '../../auth/principal.js';
import { page } from '../../http/common-schemas.js';
import type { RouteRegistrar } from '../../http/routes.js';
import {
  SETTINGS_TAG,
  SettingListQuery,
  SettingOut,
  SettingParams,
  SettingsPut,
  SettingsPutResult,
} from './schema.js';
import type { SettingsService } from './service.js';

export function registerSettingsRoutes(r: RouteRegistrar, { settings }: { settings: SettingsService }): void {
  r.add({
    method: 'get',
    path: '/api/settings',
    tag: SETTINGS_TAG,
    summary: 'Every known setting with its value, default and description, by name',
    access: STAFF,
    query: SettingListQuery,
    response: { schema: page(SettingOut) },
    handler: ({ query }) => settings.list(query),
  });

  r.add({
    method: 'put',
    path: '/api/settings',
    tag: SETTINGS_TAG,
    summary: 'Set several settings at once (all or nothing; null resets one to its default)',
    description:
      'Body: `{"settings": {"tasks.autoAssign": false, "ui.siteName": "North Yard"}}`. Each value is ' +
      'checked against its setting; an unknown name or a bad value is 400 with one error per bad ' +
      'setting (path body.settings.<name>) and nothing is stored. When an edge is linked to a cloud, ' +
      'global settings are changed in the cloud (a linked edge answers 409 `cloud-owned`) and site ' +
      'settings at the edge (the cloud answers 409 `edge-owned`); the 409 lists the settings in `settings`. ' +
      'Settings apply to a whole site or the organisation: an admin with a yard scope may not change them (403).',
    access: ['admin'],
    body: SettingsPut,
    response: { schema: SettingsPutResult },
    errors: [409],
    handler: async ({ principal, body }) => ({ items: await settings.update(principal, body.settings) }),
  });

  r.add({
    method: 'get',
    path: '/api/settings/{name}',
    tag: SETTINGS_TAG,
    summary: 'One setting (404 for a name the product does not know)',
    access: STAFF,
    params: SettingParams,
    response: { schema: SettingOut },
    errors: [404],
    handler: ({ params }) => settings.getOne(params.name),
  });
}
