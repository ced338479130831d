import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import type { Logger } from '../shared/log.js';

export interface BrokerAuth {
  /** True when this username/password may connect. */
  authenticate(username: string | undefined, password: string | undefined): boolean | Promise<boolean>;
  /** True when this (authenticated) user may publish or subscribe on the topic (filter). */
  authorize(username: string, topic: string, action: 'publish' | 'subscribe'): boolean;
}

export interface EmbeddedBroker {
  port: number;
  url: string;
  aedes: Aedes;
  stop(): Promise<void>;
}

/**
 * An in-process MQTT broker (Aedes) for a cloud with no external broker, and for tests. Without `auth`
 * every client may do anything (tests only).
 */
export async function startEmbeddedBroker(options: {
  port: number;
  host?: string;
  auth?: BrokerAuth;
  log?: Logger;
}): Promise<EmbeddedBroker> {
  const aedes = await Aedes.createBroker();
  const auth = options.auth;
  if (auth) {
    aedes.authenticate = (client, username, password, done) => {
      Promise.resolve(auth.authenticate(username, password?.toString()))
        .then((ok) => {
          if (ok) {
            (client as unknown as { yardUser: string }).yardUser = username ?? '';
            return done(null, true);
          }
          options.log?.warn({ username }, 'mqtt login refused');
          const err = Object.assign(new Error('bad username or password'), { returnCode: 4 });
          done(err as never, false);
        })
        .catch((err: Error) => done(err as never, false));
    };
    aedes.authorizePublish = (client, packet, done) => {
      const user = (client as unknown as { yardUser?: string } | null)?.yardUser;
      if (user !== undefined && auth.authorize(user, packet.topic, 'publish')) return done(null);
      options.log?.warn({ user, topic: packet.topic }, 'mqtt publish refused');
      done(new Error('not authorized'));
    };
    aedes.authorizeSubscribe = (client, sub, done) => {
      const user = (client as unknown as { yardUser?: string }).yardUser;
      if (user !== undefined && auth.authorize(user, sub.topic, 'subscribe')) return done(null, sub);
      options.log?.warn({ user, topic: sub.topic }, 'mqtt subscribe refused');
      done(new Error('not authorized'), null);
    };
  }
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    aedes,
    async stop() {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
