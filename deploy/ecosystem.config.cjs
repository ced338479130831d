// pm2 process file for a yard-site edge box. Build first (`npm run build`), then:
//   pm2 start deploy/ecosystem.config.cjs && pm2 save && pm2 startup systemd
// Configuration comes from the environment or a JSON file named by YARD_CONFIG_FILE.
module.exports = {
  apps: [
    {
      name: 'yard-edge',
      script: 'dist/edge/main.js',
      cwd: `${__dirname}/..`,
      instances: 1, // one process owns the SQLite file and the relays
      exec_mode: 'fork',
      // Sized for a Pi 4 class box: a small young generation and a capped old generation keep the
      // resident size near 150 MB under load without costing throughput (see npm run bench).
      node_args: ['--max-old-space-size=128', '--max-semi-space-size=2'],
      autorestart: true,
      max_memory_restart: '300M',
      kill_timeout: 10000, // time for the HTTP drain and relay de-energise on SIGTERM
      env: {
        NODE_ENV: 'production',
        YARD_ROLE: 'edge',
        YARD_CONFIG_FILE: '/etc/yard/edge.json',
      },
    },
  ],
};
