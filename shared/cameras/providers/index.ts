/**
 * The camera provider kinds an integration can be (GET /api/integration/camera-provider, see /v3/api-docs).
 * The integrations module validates an integration's config with `configSchema`, masks the
 * `secretFields` on reads, and keeps one `connect()`ed provider per integration version, so a
 * provider's cached token lives as long as its config does.
 */
import type { CameraProviderKind } from '../types.js';
import { apiKeyTokenKind } from './api-key-token.js';
import { frameUrlKind } from './frame-url.js';
import { httpSnapshotKind } from './http-snapshot.js';

export const CAMERA_PROVIDER_KINDS: CameraProviderKind[] = [httpSnapshotKind, apiKeyTokenKind, frameUrlKind];

const byKind = new Map(CAMERA_PROVIDER_KINDS.map((k) => [k.kind, k]));

/** The provider kind called `kind`, or undefined when there is none. */
export function providerKind(kind: string): CameraProviderKind | undefined {
  return byKind.get(kind);
}
