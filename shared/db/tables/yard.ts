/** A yard and what is installed there: locations, gates, cameras and the camera integrations. */
import type { Generated } from 'kysely';
import type { CameraSource } from '../../enums.js';
import type { Synced, Timestamps } from './columns.js';

export interface YardTable extends Synced, Timestamps {
  id: string;
  code: string;
  name: string;
  timeZone: string;
  address: string | null;
  capacity: number | null;
  status: Generated<'active' | 'inactive'>;
  siteId: string;
}

export interface LocationTable extends Synced, Timestamps {
  id: string;
  yardId: string;
  kind: 'spot' | 'door' | 'zone' | 'staging';
  name: string;
  capacity: Generated<number>;
  status: Generated<'active' | 'inactive'>;
  /** Its place on the yard plan (migration 0009): all five set, or none (not placed). Metres, degrees. */
  planX: number | null;
  planY: number | null;
  planWidth: number | null;
  planHeight: number | null;
  planRotation: number | null;
}

export interface GateTable extends Synced, Timestamps {
  id: string;
  yardId: string;
  name: string;
  direction: 'in' | 'out' | 'both';
  relay: string | null;
  cameraIds: Generated<string>;
}

export interface IntegrationTable extends Synced, Timestamps {
  id: string;
  kind: string;
  name: string;
  /** JSON, secrets included (masked by the API). */
  config: string;
  enabled: Generated<0 | 1>;
}

export interface CameraTable extends Synced, Timestamps {
  id: string;
  yardId: string;
  name: string;
  gateId: string | null;
  source: CameraSource;
  onvifXaddr: string | null;
  onvifUsername: string | null;
  onvifPassword: string | null;
  onvifProfileToken: string | null;
  onvifSnapshotUri: string | null;
  /** JSON: manufacturer, model, firmware, serial as the device reported them. */
  deviceInfo: string | null;
  integrationId: string | null;
  providerCameraId: string | null;
  enabled: Generated<0 | 1>;
}
