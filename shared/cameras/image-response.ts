/**
 * Reads a camera's HTTP answer as a snapshot, or says in CameraError terms why it is not one:
 * the status, the content type against the bytes, and the transport errors of the exchange.
 */
import axios, { type AxiosResponse, isAxiosError } from 'axios';
import { outboundRefusal } from '../net/outbound-policy.js';
import { CameraError, type Snapshot } from './types.js';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export function toSnapshot(res: AxiosResponse<Buffer>, where: string, elapsedMs: number): Snapshot {
  if (res.status >= 300 && res.status < 400) {
    throw new CameraError(
      'bad-response',
      `${where} redirected (HTTP ${res.status}) instead of sending an image; configure the final image URL.`,
      res.status,
    );
  }
  if (res.status < 200 || res.status >= 300) {
    throw new CameraError(
      'bad-response',
      `${where} answered HTTP ${res.status} instead of an image.`,
      res.status,
    );
  }
  const bytes = Buffer.isBuffer(res.data) ? res.data : Buffer.from(res.data);
  const header = String(res.headers['content-type'] ?? '').trim();
  const mediaType = header.split(';')[0]!.trim().toLowerCase();
  if (bytes.length === 0) {
    throw new CameraError(
      'bad-response',
      `${where} answered with an empty body instead of an image.`,
      res.status,
    );
  }
  // Some cameras send JPEG with no content type or a generic one; the bytes settle it.
  if ((mediaType === '' || mediaType === 'application/octet-stream') && isJpeg(bytes)) {
    return { bytes, contentType: 'image/jpeg', elapsedMs };
  }
  if (!mediaType.startsWith('image/')) {
    throw new CameraError(
      'bad-response',
      `${where} answered with ${mediaType || 'no content type'} instead of an image; check that the URL is the camera's snapshot URL.`,
      res.status,
    );
  }
  if (/^image\/(p?jpeg|jpg)$/.test(mediaType) && !isJpeg(bytes)) {
    throw new CameraError(
      'bad-response',
      `${where} said image/jpeg but the bytes are not a JPEG.`,
      res.status,
    );
  }
  return { bytes, contentType: header, elapsedMs };
}

function isJpeg(bytes: Buffer): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

export function toCameraError(err: unknown, where: string, timeoutMs: number, maxBytes: number): CameraError {
  if (err instanceof CameraError) return err;
  const refused = outboundRefusal(err);
  if (refused) return new CameraError('address-refused', refused.message);
  if (axios.isCancel(err)) {
    return new CameraError('timeout', `${where} did not send a complete image within ${timeoutMs} ms.`);
  }
  const code = isAxiosError(err) ? err.code : (err as { code?: string } | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code && UNREACHABLE_CODES.has(code)) {
    return new CameraError(
      'unreachable',
      `${where} could not be reached (${code}); check that the camera is powered, on the network and at this address.`,
    );
  }
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED') {
    return new CameraError('timeout', `${where} did not answer in time (${code}).`);
  }
  if (/maxContentLength/.test(message)) {
    return new CameraError(
      'bad-response',
      `${where} sent more than ${maxBytes} bytes; that is not a snapshot.`,
    );
  }
  return new CameraError('bad-response', `${where} failed: ${code ?? message}.`);
}
