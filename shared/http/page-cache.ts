import { createHash, randomBytes } from 'node:crypto';
import type { TableGenerations } from '../db/generations.js';

// Generations restart at 0 with the process; the boot id keeps an ETag from a previous run from matching.
const BOOT_ID = randomBytes(4).toString('hex');

/**
 * Rendered list pages of one table, reused while the table has not been written, with an ETag so
 * polling clients (gate-house screens, phones on yard Wi-Fi) get 304 Not Modified for free.
 * Bounded: the least recently used page goes first.
 */
export class PageCache {
  private readonly pages = new Map<string, { generation: number; text: string; etag: string }>();

  constructor(
    private readonly generations: TableGenerations,
    private readonly table: string,
    private readonly max = 256,
  ) {}

  async get(key: string, render: () => Promise<string>): Promise<{ text: string; etag: string }> {
    const generation = this.generations.of(this.table);
    const hit = this.pages.get(key);
    if (hit && hit.generation === generation) {
      this.pages.delete(key);
      this.pages.set(key, hit);
      return hit;
    }
    const text = await render();
    const etag = `W/"${BOOT_ID}.${generation}.${createHash('sha1').update(key).digest('base64url').slice(0, 12)}"`;
    // Only keep it if nothing was written while rendering (else it may already be stale).
    if (this.generations.of(this.table) === generation) {
      this.pages.delete(key);
      if (this.pages.size >= this.max) this.pages.delete(this.pages.keys().next().value!);
      this.pages.set(key, { generation, text, etag });
    }
    return { text, etag };
  }
}
