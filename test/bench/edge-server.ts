import { startEdge } from '../../edge/main.js';
import { loadConfig } from '../../shared/config.js';
import { silentLogger } from '../../shared/log.js';

/** The real edge (createApp on the benchmark database), as a child process of the benchmark. */
const config = loadConfig(process.env, { role: 'edge' });
const edge = await startEdge(config, silentLogger());
process.send?.({ ready: true, url: edge.url });
process.on('message', (msg: { cmd?: string }) => {
  if (msg.cmd === 'rss') process.send?.({ rss: process.memoryUsage().rss });
  if (msg.cmd === 'stop') void edge.stop().then(() => process.exit(0));
});
