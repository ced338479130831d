/**
 * One start/stop sequence for every process (edge/main.ts, cloud/main.ts, the demos): a list of
 * components started in order and stopped in reverse, so that nothing is stopped before what
 * depends on it (the HTTP server drains before the app stops, the app before the relays go safe,
 * everything before SQLite closes).
 */
export interface Component {
  /** Names the component in start failures and stop errors ("database", "http", "broker"). */
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A component failed to start; the ones started before it have been stopped. `cause` is the error. */
export class StartError extends Error {
  /** The cause's code (EADDRINUSE...), so that callers can still tell why. */
  readonly code: unknown;

  constructor(
    readonly component: string,
    cause: unknown,
  ) {
    super(`${component} did not start: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StartError';
    this.code = cause instanceof Error && 'code' in cause ? cause.code : undefined;
  }
}

/**
 * Components started in order (start, or add one at a time with startNext) and stopped in reverse.
 * stop() runs once however often it is called, stops every started component even when one of them
 * fails (relays must still go safe when the app's stop throws), and then rejects with the first error.
 */
export class Lifecycle {
  private readonly started: Component[] = [];
  private stopping: Promise<void> | undefined;

  /** Starts each component in turn; on a failure stops what started, then throws a StartError. */
  async start(components: readonly Component[]): Promise<void> {
    for (const component of components) await this.startNext(component);
  }

  async startNext(component: Component): Promise<void> {
    if (this.stopping) throw new StartError(component.name, new Error('the process is stopping'));
    try {
      await component.start();
    } catch (err) {
      // What started must not outlive a failed start (an open database, a listening broker).
      await this.stop().catch(() => {});
      throw new StartError(component.name, err);
    }
    this.started.push(component);
  }

  /** Starts something that hands back its own stop (a started edge or cloud) as the next component. */
  async startPart<T extends { stop(): Promise<void> }>(name: string, start: () => Promise<T>): Promise<T> {
    let part: T | undefined;
    await this.startNext({
      name,
      start: async () => {
        part = await start();
      },
      stop: async () => part?.stop(),
    });
    return part!;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      let first: unknown;
      for (const component of [...this.started].reverse()) {
        try {
          await component.stop();
        } catch (err) {
          first ??= new Error(`${component.name} did not stop cleanly: ${describe(err)}`, { cause: err });
        }
      }
      if (first) throw first;
    })();
    return this.stopping;
  }
}

/** A component that only has a stop (something already running, built elsewhere). */
export function stopOnly(name: string, stop: () => Promise<void> | void): Component {
  return { name, start: async () => {}, stop: async () => stop() };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
