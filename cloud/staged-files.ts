import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { ProvisionError } from './provision-error.js';

/**
 * Files written beside their targets first and moved into place together (`commit`), so a failure
 * before that leaves every target as it was; `discard` removes what was staged and not moved.
 */
export class StagedFiles {
  private readonly staged: Array<{ tmp: string; target: string }> = [];

  /** Writes `content` next to `target` (same file system, so the later rename is atomic). */
  add(target: string, content: string, mode: number, { keepMode = true }: { keepMode?: boolean } = {}): void {
    const dir = dirname(target);
    try {
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
      // Keep the owner and mode of a file we replace (the operator made it readable by mosquitto).
      const current = existsSync(target) ? statSync(target) : undefined;
      const keptMode = current && keepMode ? current.mode & 0o777 : mode;
      writeFileSync(tmp, content, { mode: keptMode, flag: 'wx' });
      chmodSync(tmp, keptMode);
      if (current && process.getuid?.() === 0) chownSync(tmp, current.uid, current.gid);
      this.staged.push({ tmp, target });
    } catch (err) {
      throw new ProvisionError(
        `Cannot write ${target}: ${(err as Error).message}.`,
        'Check that the directory exists and is writable by this user (or pass another --out).',
      );
    }
  }

  /** Moves every staged file onto its target. */
  commit(): void {
    for (const file of this.staged.splice(0)) renameSync(file.tmp, file.target);
  }

  /** Removes the staged files not moved (after a failure). */
  discard(): void {
    for (const file of this.staged.splice(0)) rmSync(file.tmp, { force: true });
  }
}

/** The password file's text with the site's line added, or replaced where it was. */
export function passwordFileWith(file: string, siteId: string, hash: string): string {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const lines = current.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);
  const entry = `${siteId}:${hash}`;
  const at = lines.findIndex((line) => line.startsWith(`${siteId}:`));
  if (at >= 0) lines[at] = entry;
  else lines.push(entry);
  return `${lines.join('\n')}\n`;
}
