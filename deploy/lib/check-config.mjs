// Loads the yard service's configuration the way the app will (YARD_CONFIG_FILE plus YARD_*
// variables) and prints every problem: the installer runs it before it starts anything.
// Usage: YARD_CONFIG_FILE=... node check-config.mjs <edge|cloud>
const { loadConfig, ConfigError } = await import(
  new URL('../../dist/shared/config.js', import.meta.url).href
);

const role = process.argv[2];
try {
  const config = loadConfig(process.env);
  if (config.role !== role) {
    console.error(`the config says role "${config.role}"; this is the ${role}'s installer`);
    process.exit(1);
  }
  console.log(
    JSON.stringify({ siteId: config.siteId, port: config.http.port, mqtt: config.mqtt.url ?? null }),
  );
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
