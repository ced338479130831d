// Applies the release's database migrations (the app applies them at start too; running them here
// first makes a failed migration an install error, before anything is switched or started).
// Usage: YARD_CONFIG_FILE=... YARD_DATA_DIR=... YARD_ROLE=... node <release>/deploy/lib/migrate.mjs
const { loadConfig } = await import(new URL('../../dist/shared/config.js', import.meta.url).href);
const { openAppDatabase } = await import(
  new URL('../../dist/shared/db/open-app-database.js', import.meta.url).href
);

const db = await openAppDatabase(loadConfig(process.env));
await db.close();
console.log('migrations applied');
