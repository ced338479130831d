import { IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { SETTING_NAME_PATTERN } from './registry.js';

export const SETTINGS_TAG = 'Settings Controller';

export const SettingName = z
  .string()
  .max(100)
  .regex(SETTING_NAME_PATTERN, 'must be a setting name like tasks.autoAssign')
  .openapi({ example: 'tasks.autoAssign' });

export const SettingOut = z
  .object({
    name: z.string(),
    value: z.unknown().openapi({ description: 'the value in force (stored, else the default)' }),
    default: z.unknown(),
    isDefault: z.boolean().openapi({ description: 'true when no value is stored and the default applies' }),
    scope: z.enum(['global', 'site']),
    description: z.string(),
    updatedAt: IsoDateTime.nullable(),
    updatedBy: z.string().nullable().openapi({ description: 'id of who stored the value' }),
  })
  .openapi('Setting');

export const SettingsPut = z
  .object({
    settings: z
      .record(z.string(), z.unknown())
      .refine((map) => Object.keys(map).length > 0, 'name at least one setting')
      .openapi({
        description:
          'setting name -> new value; null resets a setting to its default. All or nothing: ' +
          'any unknown name or invalid value is 400 (one error per bad setting) and nothing is stored.',
        example: { 'tasks.autoAssign': false, 'tasks.driverTimeoutSec': 90 },
      }),
  })
  .strict()
  .openapi('SettingsUpdate', {
    description: 'New values of one or more settings, stored together or not at all.',
    example: { settings: { 'tasks.autoAssign': false, 'tasks.driverTimeoutSec': 90 } },
  });

export const SettingsPutResult = z
  .object({ items: z.array(SettingOut).openapi({ description: 'the settings named in the request' }) })
  .openapi('SettingsUpdateResult');

export const SettingParams = z.object({ name: SettingName });

export const SettingListQuery = PageQuery;

export type SettingOutT = z.infer<typeof SettingOut>;
