import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { newId } from '../../ids.js';
import { SNIFF_BYTES } from './sniff.js';

/** Bytes written to a temporary file, already fsynced, with what we learned while streaming them. */
export interface TempBlob {
  path: string;
  size: number;
  sha256: string;
  /** The first bytes, for content sniffing. */
  head: Buffer;
}

/**
 * Attachment bytes on disk, addressed by content: `<root>/<sha[0..2]>/<sha>`. Same bytes are stored
 * once. Uploads land in `<root>/tmp` first (same file system, so the move is an atomic rename).
 */
export class BlobStore {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(readonly root: string) {}

  pathOf(sha256: string): string {
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  /** Streams `source` into a new temp file, hashing as it goes; fsyncs before resolving. */
  async writeTemp(source: Readable): Promise<TempBlob> {
    const tempDir = join(this.root, 'tmp');
    await mkdir(tempDir, { recursive: true });
    const path = join(tempDir, `${newId()}.part`);
    const file = await open(path, 'wx', 0o600);
    const hash = createHash('sha256');
    const headChunks: Buffer[] = [];
    let size = 0;
    let headSize = 0;
    try {
      // A failed write (a full disk) must reach the caller as itself: leaving the loop would
      // otherwise destroy the source, and multer would report that AbortError (a "malformed"
      // upload) instead of ENOSPC. The rest of the source is drained below.
      for await (const chunk of source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
        if (headSize < SNIFF_BYTES) {
          const part = chunk.subarray(0, SNIFF_BYTES - headSize);
          headChunks.push(part);
          headSize += part.length;
        }
        await file.write(chunk);
      }
      await file.sync();
    } catch (err) {
      source.resume();
      await file.close().catch(() => {});
      await rm(path, { force: true });
      throw err;
    }
    await file.close();
    return { path, size, sha256: hash.digest('hex'), head: Buffer.concat(headChunks) };
  }

  writeTempBuffer(bytes: Buffer): Promise<TempBlob> {
    return this.writeTemp(Readable.from([bytes]));
  }

  /**
   * Moves a temp file to its content address (or drops it when those bytes are already stored) and
   * makes the directory entry durable. Returns whether this call created the stored file.
   */
  async commit(temp: TempBlob): Promise<boolean> {
    const target = this.pathOf(temp.sha256);
    if (await exists(target)) {
      await rm(temp.path, { force: true });
      return false;
    }
    const createdDir = await mkdir(dirname(target), { recursive: true });
    await rename(temp.path, target);
    await fsyncDir(dirname(target));
    if (createdDir) await fsyncDir(this.root);
    return true;
  }

  async remove(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  async discardTemp(path: string | undefined): Promise<void> {
    if (path) await rm(path, { force: true });
  }

  /**
   * Runs `work` while no other work on the same content runs, so a delete that removes bytes cannot
   * interleave with an upload that reuses them (one process owns a data directory).
   */
  async withContentLock<T>(sha256: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(sha256) ?? Promise.resolve();
    const current = previous.catch(() => {}).then(work);
    this.locks.set(sha256, current);
    try {
      return await current;
    } finally {
      if (this.locks.get(sha256) === current) this.locks.delete(sha256);
    }
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
