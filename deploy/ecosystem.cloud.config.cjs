// pm2 process file for the cloud, next to Mosquitto. Build first (`npm run build`), then:
//   pm2 start deploy/ecosystem.cloud.config.cjs && pm2 save && pm2 startup systemd
// Configuration: /etc/yard/cloud.json (YARD_CONFIG_FILE) with role "cloud" and mqtt.url pointing at
// Mosquitto (see deploy/mosquitto/README.md); without mqtt.url the cloud runs its embedded broker.
module.exports = {
  apps: [
    {
      name: 'yard-cloud',
      script: 'dist/cloud/main.js',
      cwd: `${__dirname}/..`,
      // One process: it owns the SQLite database. Several API nodes need PostgreSQL and MQTT shared
      // subscriptions (docs/sync.md "Topics"), which are not built yet.
      instances: 1,
      exec_mode: 'fork',
      autorestart: true,
      max_memory_restart: '1G',
      kill_timeout: 15000, // HTTP drain, the sync links' last acks, SQLite checkpoint
      env: {
        NODE_ENV: 'production',
        YARD_ROLE: 'cloud',
        YARD_CONFIG_FILE: '/etc/yard/cloud.json',
      },
    },
  ],
};
