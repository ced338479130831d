import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** First-load budgets in gzip bytes (JS + CSS an app's page loads before it is usable), UI.md "How they are built". */
export const BUDGETS: Record<string, number> = {
  // The login page carries the common layer, with the problem words of every code (api/words.ts).
  home: 24_000,
  gate: 60_000,
  driver: 40_000,
  dashboard: 120_000,
  // The carrier portal on a phone over the internet (UI.md): the pass and invoices load on first use.
  carrier: 50_000,
};

interface ChunkLike {
  type: 'chunk' | 'asset';
  fileName: string;
  imports?: string[];
  code?: string;
  source?: string | Uint8Array;
  isEntry?: boolean;
  facadeModuleId?: string | null;
  viteMetadata?: { importedCss: Set<string> };
}

/**
 * Prints each app's first-load size (its entry chunk, the chunks it imports statically and their
 * CSS, gzip level 9) and fails the build when an app is over its budget. Lazy chunks do not count:
 * they load after the page is usable.
 */
export function firstLoadBudget(budgets: Record<string, number> = BUDGETS): Plugin {
  return {
    name: 'yard-first-load-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = bundle as unknown as Record<string, ChunkLike>;
      const over: string[] = [];
      const lines: string[] = [];
      for (const entry of Object.values(files)) {
        if (entry.type !== 'chunk' || !entry.isEntry || !entry.facadeModuleId?.endsWith('.html')) continue;
        const app = appName(entry.facadeModuleId);
        const seen = new Set<string>();
        const visit = (name: string) => {
          if (seen.has(name)) return;
          seen.add(name);
          const file = files[name];
          for (const css of file?.viteMetadata?.importedCss ?? []) seen.add(css);
          for (const dep of file?.imports ?? []) visit(dep);
        };
        visit(entry.fileName);
        let bytes = 0;
        for (const name of seen) bytes += gzipSize(files[name]);
        const budget = budgets[app];
        lines.push(
          `  ${app.padEnd(10)} ${(bytes / 1000).toFixed(1).padStart(6)} kB gzip first load` +
            (budget ? ` (budget ${budget / 1000} kB)` : ''),
        );
        if (budget !== undefined && bytes > budget) over.push(`${app}: ${bytes} bytes > ${budget}`);
      }
      this.info(`\nfirst-load sizes:\n${lines.join('\n')}`);
      if (over.length > 0) this.error(`over the first-load budget: ${over.join('; ')}`);
    },
  };
}

/** shared/ui/index.html is the home page; shared/ui/<app>/index.html an app. */
function appName(htmlPath: string): string {
  const parts = htmlPath.split(/[\\/]/);
  const folder = parts.at(-2) ?? 'home';
  return folder === 'ui' ? 'home' : folder;
}

function gzipSize(file: ChunkLike | undefined): number {
  if (!file) return 0;
  const body = file.type === 'chunk' ? file.code : file.source;
  if (body === undefined) return 0;
  return gzipSync(typeof body === 'string' ? Buffer.from(body) : body, { level: 9 }).length;
}
