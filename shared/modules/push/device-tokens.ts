import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { type FieldError, ValidationError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { PushTokenRepo, type PushTokenRow } from './repo.js';
import { type PushPlatformT, parseWebPushToken } from './schema.js';

export type DeviceTokenDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  /** Why a Web Push endpoint may not be reached, or null (the outbound address policy). */
  webEndpointRefusal(endpoint: string): Promise<FieldError | null>;
};

/** One device's registration: the app sends it after the driver allowed notifications. */
export interface DeviceToken {
  deviceId: string;
  platform: PushPlatformT;
  token: string;
}

/**
 * Saves the push token of one of the driver's devices (one per driver and device). A token
 * belongs to one driver at a time: yard phones are shared between shifts, so the previous
 * driver's row for the same token is removed and its messages stop reaching the new driver.
 */
export async function saveDeviceToken(deps: DeviceTokenDeps, driverId: string, input: DeviceToken) {
  deps.changes.assertMayWrite('pushToken'); // the edge's: the cloud answers 409 edge-owned
  const token = input.platform === 'web' ? await checkedWebToken(deps, input.token) : input.token.trim();
  const now = deps.clock.now();
  const saved = await deps.kysely.transaction().execute(async (trx) => {
    const repo = new PushTokenRepo(trx);
    const withToken = await repo.withToken(token);
    const existing = await repo.ofDevice(driverId, input.deviceId);
    for (const other of withToken) {
      if (other.driverId !== driverId || other.deviceId !== input.deviceId) {
        await deps.changes.delete(trx, 'pushToken', other.id);
      }
    }
    if (existing) {
      return deps.changes.update(trx, 'pushToken', existing.id, { platform: input.platform, token });
    }
    return deps.changes.insert(trx, 'pushToken', {
      id: newId(),
      driverId,
      deviceId: input.deviceId,
      platform: input.platform,
      token,
      createdAt: now,
      updatedAt: now,
    });
  });
  if (!saved) throw new Error('push token vanished inside its own transaction');
  return pushTokenOut(saved);
}

/**
 * The subscription re-serialised compactly, so the same subscription is always the same token text;
 * its endpoint must be one the push sender may reach (a driver must not make the edge POST to its
 * own loopback or LAN).
 */
async function checkedWebToken(deps: DeviceTokenDeps, token: string): Promise<string> {
  const parsed = parseWebPushToken(token);
  if (!parsed.ok) {
    throw new ValidationError(parsed.problems.map((message) => ({ path: 'body.token', message })));
  }
  const { endpoint, keys } = parsed.subscription;
  const refused = await deps.webEndpointRefusal(endpoint);
  if (refused) throw new ValidationError([refused], 'The push endpoint is refused; nothing was stored.');
  return JSON.stringify({ endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } });
}

function pushTokenOut(row: PushTokenRow) {
  return {
    id: row.id,
    driverId: row.driverId,
    deviceId: row.deviceId,
    platform: row.platform,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}
