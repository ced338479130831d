import { createHash } from 'node:crypto';
import type { Plugin } from 'vite';

/** The service worker's entry name in the build (tools/vite.config.ts) and where it is served. */
export const SW_ENTRY = 'driver-sw';
export const SW_FILE = 'driver/sw.js';

/** Files of the driver app outside the bundle (shared/ui/public/driver): cached with the shell. */
const STATIC_FILES = [
  '/driver/manifest.webmanifest',
  '/driver/icons/icon-192.png',
  '/driver/icons/icon-512.png',
  '/driver/icons/icon-maskable-512.png',
  '/driver/icons/icon-180.png',
];

interface ChunkLike {
  type: 'chunk' | 'asset';
  fileName: string;
  code?: string;
  imports?: string[];
  dynamicImports?: string[];
  isEntry?: boolean;
  name?: string;
  facadeModuleId?: string | null;
  viteMetadata?: { importedCss: Set<string> };
}

/**
 * Writes the driver app shell's file list into its service worker: the app's page (`/driver/`),
 * its entry chunk with every chunk it imports (lazy ones too: a driver offline may open any screen)
 * and their CSS, and the manifest and icons. The worker's placeholders `'__DRIVER_PRECACHE__'` (in
 * an array literal) and `'__DRIVER_BUILD__'` become that list and a hash of it, so a new release
 * is a new worker (the browser compares the script's bytes) with a new cache.
 * Runs before the compression plugin, whose copies must hold the final code.
 */
export function driverPrecache(): Plugin {
  return {
    name: 'yard-driver-precache',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const files = bundle as unknown as Record<string, ChunkLike>;
      const worker = Object.values(files).find((f) => f.type === 'chunk' && f.name === SW_ENTRY);
      const entry = Object.values(files).find(
        (f) => f.type === 'chunk' && f.isEntry && f.facadeModuleId?.endsWith('/driver/index.html'),
      );
      if (!worker?.code || !entry) this.error('driver app or its service worker missing from the build');
      const seen = new Set<string>();
      const visit = (name: string) => {
        if (seen.has(name)) return;
        seen.add(name);
        const file = files[name];
        for (const css of file?.viteMetadata?.importedCss ?? []) seen.add(css);
        for (const dep of [...(file?.imports ?? []), ...(file?.dynamicImports ?? [])]) visit(dep);
      };
      visit(entry.fileName);
      const list = ['/driver/', ...[...seen].sort().map((f) => `/${f}`), ...STATIC_FILES];
      const build = createHash('sha256').update(list.join('\n')).digest('hex').slice(0, 12);
      const code = worker.code
        .replace(/\[\s*["'`]__DRIVER_PRECACHE__["'`]\s*\]/, JSON.stringify(list))
        .replace(/["'`]__DRIVER_BUILD__["'`]/, JSON.stringify(build));
      if (code.includes('__DRIVER_PRECACHE__') || code.includes('__DRIVER_BUILD__'))
        this.error('the driver service worker lost its precache placeholders');
      worker.code = code;
    },
  };
}
