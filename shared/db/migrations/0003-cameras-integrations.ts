/**
 * Cameras and integrations (docs/domain.md "Attachments, cameras, integrations"). A camera is either an ONVIF device on the yard LAN or a camera
 * of a provider integration. Secrets (camera password, integration config secrets) are stored here in
 * clear: the edge box needs them to talk to the devices; the API only ever shows them masked.
 * camera.gate_id is the camera's gate; gate.camera_ids (0001) is kept equal to it in the same
 * transaction, in the order the gate lists them.
 */
export const up = `
CREATE TABLE integration (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  config TEXT NOT NULL DEFAULT '{}',
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX integration_name ON integration (lower(name));

CREATE TABLE camera (
  id TEXT PRIMARY KEY,
  yard_id TEXT NOT NULL REFERENCES yard (id),
  name TEXT NOT NULL,
  gate_id TEXT REFERENCES gate (id),
  source TEXT NOT NULL CHECK (source IN ('onvif', 'provider')),
  onvif_xaddr TEXT,
  onvif_username TEXT,
  onvif_password TEXT,
  onvif_profile_token TEXT,
  onvif_snapshot_uri TEXT,
  device_info TEXT,
  integration_id TEXT REFERENCES integration (id),
  provider_camera_id TEXT,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  hlc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1,
  CHECK (
    (source = 'onvif' AND onvif_xaddr IS NOT NULL AND integration_id IS NULL)
    OR (source = 'provider' AND integration_id IS NOT NULL AND provider_camera_id IS NOT NULL AND onvif_xaddr IS NULL)
  )
);
CREATE UNIQUE INDEX camera_yard_name ON camera (yard_id, lower(name));
CREATE INDEX camera_gate ON camera (gate_id) WHERE gate_id IS NOT NULL;
CREATE INDEX camera_integration ON camera (integration_id) WHERE integration_id IS NOT NULL;
`;
