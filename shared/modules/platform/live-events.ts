/**
 * The live events of GET /api/events as OpenAPI schemas, so the web apps get them typed: one
 * component per event type (the envelope with its data schema), and `LiveEvent`, their union
 * discriminated by `type`. Built from the zod schemas the modules answer with; the compiler checks
 * that every live event of shared/events.ts is here with exactly the data type it is published with.
 */
import type { LiveEvents, LiveEventType } from '../../events.js';
import { IsoDateTime } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { AppointmentOut } from '../appointments/schema.js';
import { DriverSessionOut } from '../driver-app/schema.js';
import { GateActuationOut } from '../hardware/schema.js';
import { MovementOut } from '../movements/schema.js';
import { SiteSyncStatusOut, SyncLinkData } from '../sync/schema.js';
import { TaskOut } from '../tasks/schema.js';

const DriverLastCheckData = z.object({ sessionId: z.string(), battery: z.number(), at: z.string() });
const SettingsChangedData = z.object({ names: z.array(z.string()) });
const SyncAppliedData = z.object({
  peer: z.string(),
  yardIds: z.array(z.string()).optional(),
  entities: z.record(z.string(), z.number()).openapi({ description: 'rows applied, by entity' }),
});

const DATA = {
  'movement.created': MovementOut,
  'gate.released': GateActuationOut,
  'task.created': TaskOut,
  'task.assigned': TaskOut,
  'task.unassigned': TaskOut,
  'task.started': TaskOut,
  'task.completed': TaskOut,
  'task.cancelled': TaskOut,
  'task.updated': TaskOut,
  'task.deleted': TaskOut,
  'driver.session.started': DriverSessionOut,
  'driver.session.ended': DriverSessionOut,
  'driver.last-check': DriverLastCheckData,
  'settings.changed': SettingsChangedData,
  'sync.applied': SyncAppliedData,
  'sync.link': SyncLinkData,
  'site.status': SiteSyncStatusOut,
  'appointment.changed': AppointmentOut,
} satisfies Record<LiveEventType, z.ZodType>;

/** Both ways: a schema's output is its event's data type and the reverse (no field more or less). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Mismatched = {
  [K in LiveEventType]: Same<z.output<(typeof DATA)[K]>, LiveEvents[K]> extends true ? never : K;
}[LiveEventType];
const everyDataTypeMatches: [Mismatched] extends [never] ? true : Mismatched = true;
void everyDataTypeMatches;

/** 'driver.session.started' -> 'DriverSessionStartedEvent' */
function componentName(type: string): string {
  return `${type
    .split(/[.-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;
}

function liveEvent<K extends LiveEventType>(type: K) {
  return z
    .object({
      type: z.literal(type),
      yardId: z.string().nullable().optional().openapi({ description: 'the yard it happened in' }),
      driverId: z.string().nullable().optional().openapi({ description: 'the driver it is addressed to' }),
      at: IsoDateTime.openapi({ description: 'when it was published' }),
      data: DATA[type] as (typeof DATA)[K],
    })
    .openapi(componentName(type));
}

/** What a stream says about itself: the last event before it ends, or the first after a refused resume. */
function controlEvent<T extends string>(type: T, description: string) {
  return z
    .object({ type: z.literal(type), data: z.object({ reason: z.string() }) })
    .openapi(componentName(type), { description });
}

const types = Object.keys(DATA) as LiveEventType[];

export const LiveEvent = z
  .discriminatedUnion('type', [
    ...types.map((type) => liveEvent(type)),
    controlEvent(
      'stream.reset',
      'First event of a resumed stream when the missed events cannot be replayed (reason restarted, expired or unknown): reload what you show.',
    ),
    controlEvent(
      'session.ended',
      'Last event of a stream whose credential stopped being valid (logged-out, credential-expired, ...): log in again.',
    ),
  ] as unknown as [z.ZodObject, ...z.ZodObject[]])
  .openapi('LiveEvent', {
    description:
      'The JSON data of each GET /api/events event, by `type` (also the SSE event name). Live events carry `at`, and `yardId` / `driverId` when they concern one.',
  });
