import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/principal.js';
import { onvifOnLan, onvifThroughSite } from '../../../shared/modules/cameras/onvif-reach.js';
import type { CameraRow } from '../../../shared/modules/cameras/repo.js';
import type { RunAtSiteOfYard } from '../../../shared/sync/commands.js';

const camera = { id: 'cam-1', yardId: 'yard-1', name: 'Gate 1' } as CameraRow;
const principal = { id: 'u-1', name: 'ana', kind: 'user', yardIds: null } as unknown as Principal;
const here = {
  snapshot: { bytes: Buffer.from('here'), contentType: 'image/jpeg', elapsedMs: 1 },
  attachmentId: null,
};

describe('the reach of ONVIF cameras, chosen once at start', () => {
  it('an edge takes the picture itself and may call the LAN', async () => {
    expect(await onvifOnLan.pictureFor(camera, principal, false, async () => here)).toBe(here);
    expect(() => onvifOnLan.assertOnLan('no LAN')).not.toThrow();
  });

  it("the cloud has the camera's site take it: a snapshot command to the camera's yard", async () => {
    const sent: unknown[] = [];
    const runAtSite: RunAtSiteOfYard = async (yardId, kind, args, schema) => {
      sent.push({ yardId, kind, args });
      const bytes = Buffer.from('jpeg!');
      const answer = { base64: bytes.toString('base64'), bytes: bytes.length, contentType: 'image/jpeg' };
      return schema.parse({
        ...answer,
        elapsedMs: 12,
        attachmentId: 'att-1',
        takenAt: '2026-01-01T00:00:00.000Z',
      });
    };
    const picture = await onvifThroughSite(runAtSite).pictureFor(camera, principal, true, async () => {
      throw new Error('the cloud must not call the camera');
    });
    expect(picture.attachmentId).toBe('att-1');
    expect(picture.snapshot.bytes.toString()).toBe('jpeg!');
    expect(sent).toEqual([
      {
        yardId: 'yard-1',
        kind: 'snapshot',
        args: { cameraId: 'cam-1', store: true, requestedBy: { id: 'u-1', name: 'ana', kind: 'user' } },
      },
    ]);
  });

  it("a picture cut short in the site's answer is 502 bad-site-answer; a LAN call at the cloud 409 edge-only", async () => {
    const runAtSite: RunAtSiteOfYard = async (_y, _k, _a, schema) =>
      schema.parse({
        base64: Buffer.from('abc').toString('base64'),
        bytes: 10,
        contentType: 'image/jpeg',
        elapsedMs: 1,
        attachmentId: null,
        takenAt: '2026-01-01T00:00:00.000Z',
      });
    const reach = onvifThroughSite(runAtSite);
    await expect(reach.pictureFor(camera, principal, false, async () => here)).rejects.toMatchObject({
      status: 502,
      code: 'bad-site-answer',
    });
    expect(() => reach.assertOnLan('Discovery probes the yard LAN')).toThrow(
      expect.objectContaining({ status: 409, code: 'edge-only', detail: 'Discovery probes the yard LAN' }),
    );
  });
});
