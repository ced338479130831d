import { createRequire } from 'node:module';
import type { QRCode } from 'jsqr';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { GatePass } from '../../../shared/modules/appointments/pass/index.js';
import { passQrPng } from '../../../shared/modules/appointments/pass/qr.js';
import { passOf } from './pass-fixture.js';

const require = createRequire(import.meta.url);
// jsqr is CommonJS whose types declare an ES default export: take the function itself.
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number) => QRCode | null;
// pngjs ships no types; its sync reader is all the test needs.
const { PNG } = require('pngjs') as {
  PNG: { sync: { read(buf: Buffer): { width: number; height: number; data: Buffer } } };
};

function decode(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

/** The QR code on the pass is what the gate's scanner reads: exactly the code (pass/qr.ts). */
describe('gate pass QR code', () => {
  it('decodes to the appointment code and nothing else', async () => {
    const png = await passQrPng('K7M2Q9TX');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(decode(png)).toBe('K7M2Q9TX');
  });

  it('is what the renderer serves as image/png, with a file name from the code', async () => {
    const pass = await new GatePass({ clock: new ManualClock(0) }).render(
      passOf({ code: 'ABCD2345' }),
      'png',
    );
    expect(pass.contentType).toBe('image/png');
    expect(pass.filename).toBe('gate-pass-ABCD2345.png');
    expect(decode(pass.body as Buffer)).toBe('ABCD2345');
  });
});
