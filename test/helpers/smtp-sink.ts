import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail the sink accepted: the envelope, the login used, and the message as mailparser reads it. */
export interface ReceivedMail {
  envelopeTo: string[];
  /** The AUTH user and password the client logged in with, if it did. */
  login: { username: string; password: string } | undefined;
  mail: ParsedMail;
  /** When the sink had the whole message (Date.now()), for the benchmark's email lag. */
  at: number;
}

/**
 * A real SMTP server in the test process (smtp-server), on a loopback port: it accepts every mail
 * (plain text, no TLS; AUTH accepted when `password` matches, else refused with 535) and keeps it
 * parsed by mailparser. `stop()` takes it off the network (connections are refused) and `start()`
 * puts it back on the same port, for the tests of a server that is down.
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = [];
  private server: SMTPServer | undefined;
  private waiters: Array<() => void> = [];
  port = 0;

  constructor(private readonly opts: { username?: string; password?: string } = {}) {}

  async start(): Promise<this> {
    const server = new SMTPServer({
      authOptional: true,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, callback) => {
        if (auth.username === this.opts.username && auth.password === this.opts.password) {
          callback(null, { user: { username: auth.username, password: auth.password } });
        } else {
          callback(new Error('Invalid username or password'));
        }
      },
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            const user = session.user as unknown as { username: string; password: string } | undefined;
            this.received.push({
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              login: user,
              mail,
              at: Date.now(),
            });
            for (const w of this.waiters.splice(0)) w();
            callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.server as unknown as { address(): AddressInfo }).address().port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once `n` mails have been received in all. */
  async waitFor(n: number, timeoutMs = 5000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the SMTP sink received ${this.received.length} mails, not ${n}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.received;
  }
}
