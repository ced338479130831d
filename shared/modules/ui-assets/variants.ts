import { sep } from 'node:path';
import type { Request } from 'express';
import { findFile, type UiAsset } from './service.js';

/** The build's precompressed copies beside a file (vite-plugin-compression2), in the order we prefer them. */
const COPIES = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const;

export type Encoding = (typeof COPIES)[number]['encoding'];

/** What to send for a file: itself or one of its precompressed copies. */
export interface Representation {
  /** The file to send (the copy when encoded), with an ETag of its own. */
  file: UiAsset;
  /** Content-Encoding of the copy; undefined for the file itself. */
  encoding?: Encoding;
  /** Whether the file has any copy, so that the answer depends on Accept-Encoding (Vary). */
  varies: boolean;
}

/**
 * Chooses br, then gzip, then the file itself: the first copy that exists and that the request's
 * Accept-Encoding accepts (q=0 refuses; no header accepts only identity). Our order rather than the
 * client's: brotli copies are the smallest, and browsers list gzip first with the same weight.
 * A request for "x.js.gz" itself finds no "x.js.gz.br" and gets the .gz file as a plain file.
 */
export async function chooseRepresentation(req: Request, asset: UiAsset): Promise<Representation> {
  const segments = asset.relativePath.split(sep);
  const name = segments.pop() as string;
  const copies = await Promise.all(
    COPIES.map(async (c) => ({ ...c, file: await findFile(asset.root, [...segments, name + c.suffix]) })),
  );
  const present = copies.filter((c) => c.file !== undefined);
  const chosen = present.find((c) => req.acceptsEncodings(c.encoding) === c.encoding);
  if (!chosen?.file) return { file: asset, varies: present.length > 0 };
  // Each encoding is its own representation: its own validator, never equal to the identity one.
  const etag = chosen.file.etag.replace(/"$/, `-${chosen.encoding}"`);
  return { file: { ...chosen.file, etag }, encoding: chosen.encoding, varies: true };
}
