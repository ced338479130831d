import { Api, pollLoop, type Timing } from './dashboard-http.js';

/**
 * The five polling dashboards of dashboard.ts, in a process of their own: their answers (up to
 * half a megabyte of JSON each) are received and read here, so the movement list's client in the
 * benchmark's process measures the server, not its neighbours' JSON parsing. Gets its routes in
 * the first message, polls until 'stop', then sends back every answer's timing.
 */
export interface PollerData {
  base: string;
  token: string;
  /** One list of figure routes per dashboard, each starting at a different route. */
  routes: string[][];
}

let stopped = false;
process.on('message', (message: PollerData | 'stop') => {
  if (message === 'stop') {
    stopped = true;
    return;
  }
  const api = new Api(message.base, message.token);
  void Promise.all(message.routes.map((paths) => pollLoop(api, paths, () => stopped))).then(
    (polled: Timing[][]) => process.send?.(polled.flat()),
  );
});
