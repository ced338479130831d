import express from 'express';

/**
 * The baseline: a bare express route that answers the same bytes from memory, no auth, no DB.
 * The parent sends the body to serve.
 */
const app = express();
let body = Buffer.from('{}');
app.get('/bare', (_req, res) => {
  res.type('application/json').send(body);
});
process.on('message', (msg: { body?: string; cmd?: string }) => {
  if (msg.body !== undefined) {
    body = Buffer.from(msg.body);
    process.send?.({ loaded: true });
  }
  if (msg.cmd === 'stop') process.exit(0);
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send?.({ ready: true, url: `http://127.0.0.1:${address.port}` });
});
