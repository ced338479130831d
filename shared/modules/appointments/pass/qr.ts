import { lazyModule } from '../../../lazy-module.js';

const loadQrcode = lazyModule(async () => (await import('qrcode')).default);

/**
 * The appointment code as a QR code PNG: what the gate's scanner reads (it types the code and
 * Enter into the gate's code field, docs/domain.md "At the gate"). Only the code: no URL and no
 * personal data, so a photographed pass gives nothing away. Error correction M survives a creased
 * or smudged print; the quiet zone of 2 modules is what handheld scanners need.
 */
export async function passQrPng(code: string): Promise<Buffer> {
  const QRCode = await loadQrcode();
  return QRCode.toBuffer(code, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 8 });
}
