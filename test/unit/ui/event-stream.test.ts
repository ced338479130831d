import { describe, expect, it } from 'vitest';
import { EventStream, type StreamEvent, type StreamState } from '../../../shared/ui/common/events';

/** A scripted server: each connection answers with the next script (SSE text, or a failure). */
function scriptedFetch(
  scripts: Array<{ status?: number; body?: string; fail?: boolean; keepOpen?: boolean }>,
) {
  const requests: Array<{ headers: Record<string, string> }> = [];
  const fetch = (async (_url: string, init: RequestInit) => {
    requests.push({ headers: { ...(init.headers as Record<string, string>) } });
    const script = scripts.shift();
    if (!script || script.fail) throw new TypeError('network down');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (script.body) controller.enqueue(new TextEncoder().encode(script.body));
        if (!script.keepOpen) controller.close();
        init.signal?.addEventListener('abort', () => controller.error(new Error('aborted')));
      },
    });
    return new Response(body, { status: script.status ?? 200 });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, requests };
}

function collect(scripts: Parameters<typeof scriptedFetch>[0]) {
  const server = scriptedFetch(scripts);
  const events: StreamEvent[] = [];
  const states: StreamState[] = [];
  const timers: Array<{ fn: () => void; ms: number }> = [];
  let resyncs = 0;
  const ended: string[] = [];
  const stream = new EventStream({
    token: () => 'tok-1',
    fetch: server.fetch,
    onEvent: (e) => events.push(e),
    onState: (s) => states.push(s),
    onResync: () => {
      resyncs += 1;
    },
    onSessionEnded: (r) => ended.push(r),
    backoff: (n) => n * 1000,
    setTimeout: (fn, ms) => timers.push({ fn, ms }),
  });
  return { stream, server, events, states, timers, resyncs: () => resyncs, ended };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('the live event stream (fetch + eventsource-parser)', () => {
  it('sends the bearer token, parses named JSON events and remembers the last id', async () => {
    const t = collect([
      {
        body: 'retry: 3000\n: connected\n\nid: 7\nevent: movement.created\ndata: {"type":"movement.created","data":{"id":"m1"}}\n\n',
        keepOpen: true,
      },
    ]);
    t.stream.start();
    await tick();
    expect(t.server.requests[0]?.headers.Authorization).toBe('Bearer tok-1');
    expect(t.server.requests[0]?.headers['Last-Event-ID']).toBeUndefined();
    expect(t.events).toEqual([
      { id: '7', type: 'movement.created', data: { type: 'movement.created', data: { id: 'm1' } } },
    ]);
    expect(t.states).toEqual(['connecting', 'open']);
    t.stream.stop();
  });

  it('reconnects after a dropped stream with backoff, resumes with Last-Event-ID and asks screens to resync', async () => {
    const t = collect([
      { body: 'id: 41\nevent: task.assigned\ndata: {"n":1}\n\n' },
      { fail: true },
      { body: 'id: 42\nevent: task.started\ndata: {"n":2}\n\n', keepOpen: true },
    ]);
    t.stream.start();
    await tick();
    // The first stream ended: one reconnect is scheduled after the first backoff step.
    expect(t.timers.map((x) => x.ms)).toEqual([1000]);
    t.timers.shift()?.fn();
    await tick();
    // That attempt failed (network down): the next waits longer.
    expect(t.timers.map((x) => x.ms)).toEqual([2000]);
    t.timers.shift()?.fn();
    await tick();
    expect(t.server.requests.map((r) => r.headers['Last-Event-ID'])).toEqual([undefined, '41', '41']);
    expect(t.events.map((e) => e.id)).toEqual(['41', '42']);
    expect(t.resyncs()).toBe(1);
    expect(t.states).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    t.stream.stop();
  });

  it('stops for good when the server ends the session, and on a 401', async () => {
    const a = collect([
      { body: 'event: session.ended\ndata: {"type":"session.ended","data":{"reason":"logout"}}\n\n' },
    ]);
    a.stream.start();
    await tick();
    expect(a.ended).toEqual(['logout']);
    expect(a.timers).toEqual([]);

    const b = collect([{ status: 401 }]);
    b.stream.start();
    await tick();
    expect(b.ended).toEqual(['unauthenticated']);
    expect(b.timers).toEqual([]);
  });

  it('a stream.reset from the server makes screens reload instead of trusting the replay', async () => {
    const t = collect([
      {
        body: 'event: stream.reset\ndata: {}\n\nid: 3\nevent: movement.created\ndata: {}\n\n',
        keepOpen: true,
      },
    ]);
    t.stream.start();
    await tick();
    expect(t.resyncs()).toBe(1);
    expect(t.events.map((e) => e.type)).toEqual(['movement.created']);
    t.stream.stop();
  });
});
