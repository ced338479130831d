import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { driverPrecache, SW_ENTRY, SW_FILE } from './driver-precache.js';
import { firstLoadBudget } from './ui-budget.js';

const uiRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../shared/ui');

/** The one build of the web apps (`npm run build:ui`, run by `npm install`): dist/ui, served at `/` by both roles. */
export const UI_OUT_DIR = resolve(uiRoot, '../../dist/ui');

export default defineConfig({
  root: uiRoot,
  base: '/',
  logLevel: 'info',
  plugins: [
    preact(),
    driverPrecache(),
    // Precompressed copies beside each file: the server sends .br or .gz by Accept-Encoding.
    compression({ algorithms: ['gzip', 'brotliCompress'], threshold: 512, logLevel: 'silent' }),
    firstLoadBudget(),
  ],
  build: {
    outDir: UI_OUT_DIR,
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    sourcemap: false,
    rollupOptions: {
      input: {
        home: resolve(uiRoot, 'index.html'),
        gate: resolve(uiRoot, 'gate/index.html'),
        driver: resolve(uiRoot, 'driver/index.html'),
        dashboard: resolve(uiRoot, 'dashboard/index.html'),
        carrier: resolve(uiRoot, 'carrier/index.html'),
        // The driver app's service worker: one file at a fixed address (its scope is /driver/).
        [SW_ENTRY]: resolve(uiRoot, 'driver/offline/sw.ts'),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === SW_ENTRY ? SW_FILE : 'assets/[name]-[hash].js'),
      },
    },
  },
});
