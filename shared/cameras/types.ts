/**
 * How the API reaches cameras (docs/architecture.md "Who depends on whom": CameraSources). ONVIF
 * devices on the yard LAN are read by an OnvifClient (onvif-client.ts: node-onvif for SOAP, our own
 * HTTP client for snapshot bytes); cloud camera services by CameraProvider kinds (providers/, axios).
 */
import type { z } from 'zod';
import type { OutboundPolicy } from '../net/outbound-policy.js';

/** JPEG (or other image) bytes from a camera, and how long the camera took to answer. */
export interface Snapshot {
  bytes: Buffer;
  contentType: string;
  /** From sending the request to having the last byte, in ms (the camera's own response time). */
  elapsedMs: number;
}

/** How to authenticate an HTTP request to a camera or provider. */
export type HttpAuth =
  | { type: 'none' }
  | { type: 'basic'; username: string; password: string }
  | { type: 'digest'; username: string; password: string }
  | { type: 'bearer'; token: string };

export type CameraFailure =
  /** The camera or provider refused the credentials. */
  | 'unauthorized'
  /** Nothing answered: connection refused, host unreachable, DNS failure. */
  | 'unreachable'
  /** No complete answer within the timeout. */
  | 'timeout'
  /** It answered, but not with what we asked for (HTTP error, not an image, a SOAP fault). */
  | 'bad-response'
  /** The provider does not know this camera id. */
  | 'not-found'
  /** The outbound address policy refused the address (shared/net/outbound-policy.ts); nothing was sent. */
  | 'address-refused';

/** A camera or provider failed; `message` says what happened and what to check, with no secrets. */
export class CameraError extends Error {
  constructor(
    readonly failure: CameraFailure,
    message: string,
    /** The upstream HTTP status, when there was one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'CameraError';
  }
}

export interface OnvifTarget {
  /** Device service address, e.g. http://192.168.1.20/onvif/device_service */
  xaddr: string;
  username: string;
  password: string;
}

export interface OnvifProfile {
  token: string;
  name: string;
  snapshotUri: string | null;
  streamUri: string | null;
  encoding: string | null;
  width: number | null;
  height: number | null;
}

export interface OnvifDeviceInfo {
  manufacturer: string | null;
  model: string | null;
  firmwareVersion: string | null;
  serialNumber: string | null;
  hardwareId: string | null;
  profiles: OnvifProfile[];
}

export interface DiscoveredCamera {
  /** Device service address to register with. */
  xaddr: string;
  /** WS-Discovery endpoint reference (urn:uuid:...), stable per device. */
  urn: string;
  name: string | null;
  hardware: string | null;
  scopes: string[];
}

/** How one call to a camera may go: its time budget and the addresses it may connect to. */
export interface DeviceCallOptions {
  timeoutMs: number;
  policy: OutboundPolicy;
}

export interface OnvifClient {
  /** Reads device information and the media profiles with their snapshot and stream URIs. */
  describe(target: OnvifTarget, opts: DeviceCallOptions): Promise<OnvifDeviceInfo>;
  /** Fetches snapshot bytes from snapshotUri with the camera's credentials (Digest only; never Basic). */
  snapshot(target: OnvifTarget & { snapshotUri: string }, opts: DeviceCallOptions): Promise<Snapshot>;
  /** WS-Discovery probe; answers collected for timeoutMs. */
  discover(opts: { timeoutMs: number }): Promise<DiscoveredCamera[]>;
}

export interface ProviderCamera {
  id: string;
  name: string;
  /** Site or location text the provider gives, if any. */
  location: string | null;
  online: boolean | null;
}

/** One integration's live connection to a camera provider (holds its cached token, if any). */
export interface CameraProvider {
  listCameras(opts: { timeoutMs: number }): Promise<ProviderCamera[]>;
  snapshot(providerCameraId: string, opts: { timeoutMs: number }): Promise<Snapshot>;
}

/** A kind of camera provider: its config schema and how to connect with a config. */
export interface CameraProviderKind<C = Record<string, unknown>> {
  kind: string;
  title: string;
  description: string;
  /** zod object for the integration's config; secret fields are listed in secretFields. */
  configSchema: z.ZodType<C>;
  /** Top-level config keys (dotted paths for nested ones, e.g. `auth.password`) that are write-only. */
  secretFields: string[];
  /** `policy`: the addresses the connection may reach (its URLs, and any URL the provider answers with). */
  connect(config: C, deps: { now: () => number; policy: OutboundPolicy }): CameraProvider;
}

/** The camera adapters an app is built with (docs/architecture.md "The composition root": the `cameras` dependency of createApp). */
export interface CameraSources {
  onvif: OnvifClient;
  providers: readonly CameraProviderKind[];
}
