import type express from 'express';
import { canSeeYard, carrierOf, type Principal } from '../../auth/principal.js';
import type { ResumeRefusal } from '../../bus.js';
import type { CoreParts } from '../../core-parts.js';
import { isLive, isSiteWide, type PublishedEvent } from '../../events.js';
import { carrierAppointmentOut } from '../appointments/carrier-rules.js';
import type { AuthService } from '../auth/service.js';

/**
 * Who receives a live event: a driver only their own; a carrier user only the appointment changes
 * of its own carrier in its yards (never yard inventory, tasks, people or the site's state); a
 * site-wide one (sync.link: the state of this site's link) every staff member; an event about a
 * yard whoever may see that yard; an organisation-wide one (or a driver's without a yard) only a
 * user without a yard scope.
 */
export function mayReceive(principal: Principal, event: PublishedEvent): boolean {
  // In-process events (events.ts) are for reactions inside this process, never for a client.
  if (!isLive(event.type)) return false;
  if (principal.role === 'driver') return event.driverId === principal.id;
  if (principal.role === 'carrier') return carrierMayReceive(principal, event);
  if (isSiteWide(event.type)) return true;
  if (event.driverId && !event.yardId) return principal.yardIds === null;
  if (event.yardId) return canSeeYard(principal, event.yardId);
  return principal.yardIds === null;
}

/** The events a carrier user receives (docs/api.md "Live events"): its own carrier's appointments. */
function carrierMayReceive(principal: Principal, event: PublishedEvent): boolean {
  if (event.type !== 'appointment.changed') return false;
  const carrierId = carrierOf(principal);
  // The appointment itself names its carrier; a publisher may also name it on the event.
  const of = event.carrierId ?? event.data.carrierId;
  return of === carrierId && canSeeYard(principal, event.yardId ?? event.data.yardId);
}

/** The event as the principal may read it: a carrier user's appointment as its reads show it. */
function asSeenBy(principal: Principal, event: PublishedEvent): PublishedEvent {
  if (event.type !== 'appointment.changed') return event;
  return { ...event, data: carrierAppointmentOut(principal, event.data) };
}

/**
 * The first event of a stream resumed from an id whose missed events are not all kept (the process
 * restarted, or more than the replay buffer happened): reload, then follow the stream. Its id is the
 * current position, so a reconnect after it resumes from here.
 */
export function streamReset(reason: ResumeRefusal) {
  return { type: 'stream.reset' as const, data: { reason } };
}

/** How often an open stream sends a keep-alive and checks that its credential still stands. */
const HEARTBEAT_MS = 15_000;

/** Serves one client's `/api/events` stream (SSE) until it closes or its credential ends. */
export function streamEvents(
  deps: Pick<CoreParts, 'bus' | 'log'> & { auth: Pick<AuthService, 'live' | 'isCurrent'> },
  principal: Principal,
  req: express.Request,
  res: express.Response,
): void {
  res.status(200).set({
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const send = (event: PublishedEvent) => {
    if (!mayReceive(principal, event)) return;
    res.write(
      `id: ${deps.bus.idOf(event.seq)}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...asSeenBy(principal, event), seq: undefined })}\n\n`,
    );
  };
  res.write('retry: 3000\n: connected\n\n');
  const lastEventId = req.get('last-event-id');
  if (lastEventId !== undefined && lastEventId !== '') {
    // Replay what the client missed, or tell it honestly that we cannot: it reloads what it shows.
    const resume = deps.bus.resume(lastEventId);
    if ('events' in resume) for (const event of resume.events) send(event);
    else
      res.write(
        `id: ${resume.at}\nevent: stream.reset\ndata: ${JSON.stringify(streamReset(resume.refused))}\n\n`,
      );
  }
  const unsubscribe = deps.bus.subscribe(send);
  // The stream must not outlive its credential: logout, a revoked key, a disabled user or a changed
  // role or scope ends it at once (AuthService.live); expiry and the rest at the next heartbeat.
  const unregister = deps.auth.live.add(principal, (reason) => end(reason));
  const heartbeat = setInterval(() => {
    res.write(': keep-alive\n\n');
    deps.auth.isCurrent(principal).then(
      (ok) => ok || end('credential-expired'),
      (err: unknown) => deps.log.warn({ err }, 'checking an event stream credential failed'),
    );
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const close = () => {
    clearInterval(heartbeat);
    unsubscribe();
    unregister();
  };
  const end = (reason: string) => {
    close();
    if (res.writableEnded) return;
    res.end(`event: session.ended\ndata: ${JSON.stringify({ type: 'session.ended', data: { reason } })}\n\n`);
  };
  req.on('close', close);
  res.on('close', close);
}
