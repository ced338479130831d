import { z } from '../../http/zod.js';
import { ALLOW_LOCAL_SETTING } from '../../net/outbound-policy.js';

/**
 * Every setting the product knows. A setting that is not here cannot be stored; one that is
 * here but not stored has its default. `global` settings belong to the cloud (the whole
 * organisation), `site` settings to each edge (docs/domain.md "Settings").
 */
export interface SettingDefinition<S extends z.ZodType = z.ZodType> {
  schema: S;
  default: z.output<S>;
  scope: 'global' | 'site';
  description: string;
}

function define<S extends z.ZodType>(definition: SettingDefinition<S>): SettingDefinition<S> {
  return definition;
}

const KiB = 1024;
const MiB = 1024 * KiB;

const MimeType = z
  .string()
  .regex(/^[A-Za-z0-9][\w!#$&^.+-]*\/(?:\*|[A-Za-z0-9][\w!#$&^.+-]*)$/, 'must be a MIME type, e.g. image/png')
  .max(127)
  .transform((t) => t.toLowerCase());

export const SETTINGS = {
  'attachments.allowedTypes': define({
    schema: z
      .array(MimeType)
      .min(1)
      .max(50)
      .refine((types) => new Set(types).size === types.length, 'types must not repeat'),
    default: ['image/jpeg', 'image/png', 'image/webp', 'application/pdf'],
    scope: 'global',
    description: 'MIME types an upload may have (type/* allows a whole family).',
  }),
  'attachments.maxBytes': define({
    schema: z
      .number()
      .int()
      .min(KiB)
      .max(50 * MiB),
    default: 10 * MiB,
    scope: 'global',
    description: 'Largest upload accepted, in bytes (1 KiB to 50 MiB).',
  }),
  'billing.autoDraftDay': define({
    schema: z.number().int().min(0).max(28),
    default: 0,
    scope: 'global',
    description:
      "Day of the month (1 to 28, in each yard's time zone) from which the previous month's invoice " +
      'drafts are generated automatically where billing lives (the cloud, or a standalone edge); 0: off.',
  }),
  'dashboard.errorWindowMinutes': define({
    schema: z.number().int().min(1).max(10_080),
    default: 1440,
    scope: 'global',
    description: 'Window of the per-yard 4xx/5xx dashboard figures, in minutes (up to a week).',
  }),
  'gate.maxActuationsPerMinute': define({
    schema: z.number().int().min(1).max(600),
    default: 12,
    scope: 'site',
    description: 'Relay pulses one gate accepts per minute; more are refused and audited.',
  }),
  'camera.snapshotTimeoutMs': define({
    schema: z.number().int().min(500).max(30_000),
    default: 5000,
    scope: 'site',
    description: 'How long GET /api/camera/{id}/snapshot and provider calls wait for a camera, in ms.',
  }),
  'camera.movementSnapshotTimeoutMs': define({
    schema: z.number().int().min(200).max(10_000),
    default: 2000,
    scope: 'site',
    description:
      'How long a movement with snapshot: true waits for its cameras before recording and opening the gate without the missing pictures, in ms.',
  }),
  [ALLOW_LOCAL_SETTING]: define({
    schema: z.boolean(),
    default: false,
    scope: 'site',
    description:
      'Cameras and camera providers may be reached at loopback (127.0.0.0/8, ::1) and link-local ' +
      'addresses (169.254.0.0/16, fe80::/10, where cloud hosts answer metadata requests). Off: those ' +
      'addresses are refused. Private LAN ranges are always allowed.',
  }),
  'gate.requireDriverCheck': define({
    schema: z.boolean(),
    default: true,
    scope: 'site',
    description: 'Check-ins need a driver that passes the driver check (or an override with a reason).',
  }),
  'idempotency.retentionHours': define({
    schema: z.number().int().min(12).max(720),
    default: 48,
    scope: 'site',
    description:
      'Hours an Idempotency-Key and its answer are kept (a phone replaying actions queued offline must ' +
      'get the first answer again, so at least a shift).',
  }),
  'idempotency.maxKeysPerCaller': define({
    schema: z.number().int().min(100).max(100_000),
    default: 1000,
    scope: 'site',
    description:
      'Idempotency-Keys kept at once for one caller (a driver, a user, an API key). A new key past it is ' +
      'refused with 429 until the oldest expires; stored answers are never dropped early. A busy jockey ' +
      'uses about a hundred in a retention period.',
  }),
  'locations.retentionDays': define({
    schema: z.number().int().min(1).max(3650),
    default: 30,
    scope: 'site',
    description: 'Days driver location pings are kept.',
  }),
  'tasks.autoAssign': define({
    schema: z.boolean(),
    default: true,
    scope: 'site',
    description: 'Assign queued yard tasks to available drivers automatically.',
  }),
  'tasks.driverTimeoutSec': define({
    schema: z.number().int().min(10).max(3600),
    default: 120,
    scope: 'site',
    description: 'Seconds without a device heartbeat after which a driver counts as offline.',
  }),
  'tasks.maxAssignedPerDriver': define({
    schema: z.number().int().min(1).max(20),
    default: 1,
    scope: 'site',
    description: 'Open tasks a driver may hold before counting as busy.',
  }),
  'ui.siteName': define({
    schema: z.string().trim().min(1).max(80),
    default: 'Yard',
    scope: 'site',
    description: 'Name shown in the web UI header.',
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<K extends SettingName> = z.output<(typeof SETTINGS)[K]['schema']>;

export const SETTING_NAMES = (Object.keys(SETTINGS) as SettingName[]).sort();

/** Lower camel case words joined by dots, like tasks.autoAssign. */
export const SETTING_NAME_PATTERN = /^[a-z][A-Za-z0-9]*(?:\.[a-z][A-Za-z0-9]*)+$/;

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name);
}

export function definitionOf(name: SettingName): SettingDefinition {
  return SETTINGS[name] as SettingDefinition;
}
