import type { Response } from 'express';
import { STAFF } from '../../auth/principal.js';
import type { Snapshot } from '../../cameras/types.js';
import { IdParams, PageQuery, page } from '../../http/common-schemas.js';
import { pageInMemory } from '../../http/cursor.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import { ProviderCameraList } from '../integrations/schema.js';
import type { IntegrationService } from '../integrations/service.js';
import {
  CameraCreate,
  CameraListQuery,
  CameraOut,
  CameraPatch,
  CameraProviderOut,
  DiscoverBody,
  DiscoveredCameraOut,
  ProviderSnapshotParams,
  SnapshotQuery,
} from './schema.js';
import type { CameraService } from './service.js';

const TAG = 'Camera Controller';
const IMAGE = { contentType: 'image/jpeg', description: 'the picture, as the camera encoded it' };

export function registerCameraRoutes(
  r: RouteRegistrar,
  { cameras, integrations }: { cameras: CameraService; integrations: IntegrationService },
): void {
  r.add({
    method: 'get',
    path: '/api/camera',
    tag: TAG,
    summary: 'Get all Yard Cameras (yardId filters to one yard)',
    access: STAFF,
    query: CameraListQuery,
    response: { schema: page(CameraOut) },
    handler: ({ query, principal }) => cameras.list(query, principal),
  });

  r.add({
    method: 'post',
    path: '/api/camera',
    tag: TAG,
    summary: 'Register Yard Camera (ONVIF address + credentials, or integration + provider camera id)',
    description:
      'With verify (the default) the camera is reached first: an ONVIF camera must answer with its profiles and a snapshot URI, a provider camera must be in its integration. ' +
      'Failures answer 502 camera-auth-failed / camera-unreachable / camera-bad-response or 504 camera-timeout, and nothing is stored.',
    access: ['admin'],
    body: CameraCreate,
    response: { status: 201, schema: CameraOut },
    errors: [404, 409, 502, 504],
    handler: async ({ body, principal, res }) => {
      const camera = await cameras.create(body, principal);
      res.setHeader('ETag', etagOf(camera.version));
      res.setHeader('Location', `/api/camera/${camera.id}`);
      return camera;
    },
  });

  r.add({
    method: 'post',
    path: '/api/camera/discover',
    tag: TAG,
    summary: 'ONVIF WS-Discovery probe on the LAN (edge)',
    description:
      'Collects answers for timeoutMs. Cameras on other subnets do not answer a probe: register them by address.',
    access: ['admin'],
    body: DiscoverBody,
    response: { schema: z.array(DiscoveredCameraOut) },
    errors: [409],
    handler: ({ body }) => cameras.discover(body.timeoutMs),
  });

  r.add({
    method: 'get',
    path: '/api/camera/integration',
    tag: TAG,
    summary: 'Get all available integration cameras (from every enabled integration)',
    description:
      'A provider camera belongs to a yard only through the yard cameras registered for it: a caller ' +
      'with a yard scope sees the provider cameras registered in its yards (registeredCameraIds lists ' +
      'only those) and the failures of their integrations; unregistered ones only callers who see every yard.',
    access: STAFF,
    query: PageQuery,
    response: { schema: ProviderCameraList },
    handler: async ({ query, principal }) => {
      // Asked live from the providers each time; the page is cut from the whole answer.
      const { items, failures } = await integrations.allProviderCameras(principal);
      return { ...pageInMemory(items, query, (c) => [c.integrationId, c.id]), failures };
    },
  });

  r.add({
    method: 'get',
    path: '/api/camera/integration/{integrationId}/{providerCameraId}/snapshot',
    tag: TAG,
    summary: 'Get snapshot from camera provider integration',
    description:
      'A caller with a yard scope may take a picture only from a provider camera registered as a yard ' +
      'camera in one of its yards (else 404); an unregistered provider camera only a caller who sees every yard.',
    access: STAFF,
    params: ProviderSnapshotParams,
    response: IMAGE,
    errors: [404, 409, 502, 504],
    handler: async ({ params, principal, res }) => {
      const { integrationId, providerCameraId } = params;
      sendImage(res, await integrations.snapshotFor(principal, integrationId, providerCameraId), null);
    },
  });

  r.add({
    method: 'get',
    path: '/api/camera/provider',
    tag: TAG,
    summary: 'Get Camera Providers (kinds and the integrations of each)',
    access: STAFF,
    query: PageQuery,
    response: { schema: page(CameraProviderOut) },
    handler: async ({ query }) => pageInMemory(await cameras.providers(), query, (_, i) => [i]), // the registry's order,
  });

  r.add({
    method: 'get',
    path: '/api/camera/{id}',
    tag: TAG,
    summary: 'Get Yard Camera (never returns secrets)',
    access: STAFF,
    params: IdParams,
    response: { schema: CameraOut },
    errors: [404],
    handler: async ({ params, principal, res }) => {
      const camera = await cameras.get(params.id, principal);
      res.setHeader('ETag', etagOf(camera.version));
      return camera;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/camera/{id}',
    tag: TAG,
    summary: 'Modify a Yard Camera (send If-Match to avoid overwriting a newer change)',
    access: ['admin'],
    params: IdParams,
    body: CameraPatch,
    response: { schema: CameraOut },
    errors: [404, 409, 412, 502, 504],
    handler: async ({ params, body, principal, ifMatch, res }) => {
      const camera = await cameras.update(params.id, body, principal, ifMatch);
      res.setHeader('ETag', etagOf(camera.version));
      return camera;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/camera/{id}',
    tag: TAG,
    summary: 'De-register Yard Camera (its stored pictures stay)',
    access: ['admin'],
    params: IdParams,
    response: { status: 204 },
    errors: [404],
    handler: async ({ params, principal }) => {
      await cameras.delete(params.id, principal);
    },
  });

  r.add({
    method: 'get',
    path: '/api/camera/{id}/snapshot',
    tag: TAG,
    summary: 'A JPEG from the camera now (store=true keeps it as an attachment)',
    description:
      "At the cloud an ONVIF camera's picture is taken by the edge of its site (store=true makes the " +
      'attachment there; its record arrives by sync) and its problems are answered as the edge gave them; ' +
      '504 `site-offline` when the edge did not answer in time. Provider cameras are called from where the request is.',
    access: STAFF,
    params: IdParams,
    query: SnapshotQuery,
    response: { ...IMAGE, headers: { 'X-Attachment-Id': 'the stored attachment, with store=true' } },
    errors: [404, 409, 502, 504],
    handler: async ({ params, query, principal, res }) => {
      const { snapshot, attachmentId } = await cameras.snapshot(params.id, principal, { store: query.store });
      sendImage(res, snapshot, attachmentId);
    },
  });
}

function sendImage(res: Response, snapshot: Snapshot, attachmentId: string | null): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Camera-Elapsed-Ms', String(Math.round(snapshot.elapsedMs)));
  if (attachmentId) {
    res.setHeader('X-Attachment-Id', attachmentId);
    res.setHeader('Location', `/api/attachment/${attachmentId}`);
  }
  res.type(snapshot.contentType).send(snapshot.bytes);
}
