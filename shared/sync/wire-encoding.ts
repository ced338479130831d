import { promisify } from 'node:util';
import { constants, deflate, inflate } from 'node:zlib';
import { BATCH_LIMITS } from './protocol.js';

/**
 * How a change batch travels (docs/sync.md "On the wire"). A batch is JSON; compressed, it is that
 * JSON as a zlib stream (RFC 1950: deflate with a two-byte header and a checksum). The two tell
 * themselves apart by their first byte: JSON always starts with `{`, a zlib stream with 0x78 (a
 * 32 KiB window, the only one zlib writes by default). No envelope: an older receiver that does
 * not know compression fails to parse it, drops it and never acks, so a sender only compresses for
 * a peer whose acks said it accepts `deflate` (Ack.accept, negotiated per link: peer-encodings.ts).
 *
 * Why deflate: every supported Node has it in node:zlib, and on change batches (JSON rows that
 * repeat their keys and ids) it gives most of what brotli or zstd would at a fraction of
 * brotli's CPU (figures: `npm run bench:sync-wire`). zstd only arrived in Node 22.15/23.8.
 */

export type WireEncoding = 'deflate';

/** What this version can decode, in the order it prefers: advertised in every ack. */
export const ACCEPTED_ENCODINGS: readonly WireEncoding[] = ['deflate'];

/**
 * A compressed batch never expands past the batch byte limit: a sender compresses only batches
 * within it (a single row over the limit travels as plain JSON, which the packet size bounds), so a
 * receiver stops inflating at the limit and drops the rest unread: a small "bomb" that would expand
 * to gigabytes costs at most this much memory.
 */
export const MAX_INFLATED_BYTES = BATCH_LIMITS.bytes;

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

/**
 * The batch as it goes on the wire for a peer that accepts `encoding` (undefined: plain JSON).
 * Runs on libuv's thread pool: a 256 KiB batch costs the event loop nothing.
 */
export async function encodeBatch(
  json: string,
  encoding: WireEncoding | undefined,
): Promise<string | Buffer> {
  if (encoding !== 'deflate') return json;
  const bytes = Buffer.from(json);
  if (bytes.length > MAX_INFLATED_BYTES) return json;
  return deflateAsync(bytes, { level: constants.Z_DEFAULT_COMPRESSION });
}

export type DecodedPayload =
  | { ok: true; text: string; encoding: WireEncoding | 'json' }
  | { ok: false; reason: string };

/** A received batch's JSON text, inflated within MAX_INFLATED_BYTES when it came compressed. */
export async function decodeBatchPayload(payload: Buffer): Promise<DecodedPayload> {
  if (!isZlibStream(payload)) return { ok: true, text: payload.toString(), encoding: 'json' };
  try {
    const text = (await inflateAsync(payload, { maxOutputLength: MAX_INFLATED_BYTES })).toString();
    return { ok: true, text, encoding: 'deflate' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ERR_BUFFER_TOO_LARGE'
      ? { ok: false, reason: `inflates past ${MAX_INFLATED_BYTES} bytes` }
      : { ok: false, reason: `not a valid deflate stream (${(err as Error).message})` };
  }
}

/**
 * RFC 1950's header: CM = 8 (deflate) with a 32 KiB window (0x78), and the two header bytes a
 * multiple of 31. Plain JSON starts with `{` (0x7b) and never passes.
 */
export function isZlibStream(payload: Buffer): boolean {
  return payload.length >= 2 && payload[0] === 0x78 && (payload[0] * 256 + payload[1]!) % 31 === 0;
}

/** The encoding to send a peer in, from the `accept` list of its latest ack and our setting. */
export function chooseEncoding(
  peerAccepts: readonly string[] | undefined,
  setting: 'deflate' | 'none',
): WireEncoding | undefined {
  if (setting === 'none' || !peerAccepts) return undefined;
  return ACCEPTED_ENCODINGS.find((e) => e === setting && peerAccepts.includes(e));
}
