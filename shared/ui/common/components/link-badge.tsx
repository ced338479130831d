import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../api/client';
import { onLive } from '../live';
import { loadSyncStatus } from '../reads';
import { yardTime } from '../time';

type SyncStatus = Schemas['SyncStatus'];

/**
 * The site's link to the cloud, always in view: standalone, online, or offline since when, with
 * the changes waiting to be sent. Refreshed by live events, never by a polling loop.
 */
export function LinkBadge(props: { timeZone: string }) {
  const [status, setStatus] = useState<SyncStatus | null>(null);
  useEffect(() => {
    let alive = true;
    const load = () =>
      loadSyncStatus()
        .then((s) => alive && setStatus(s))
        .catch(() => undefined);
    load();
    // sync.link says when the link goes up or down and when the queue changes (throttled).
    const off = onLive(['sync.'], load, load);
    return () => {
      alive = false;
      off();
    };
  }, []);
  if (!status) return null;
  const text = linkText(status, props.timeZone);
  return (
    <span class={`badge link-${text.tone}`} title={text.title} role="status">
      {text.label}
    </span>
  );
}

export function linkText(s: SyncStatus, timeZone: string): { label: string; title: string; tone: string } {
  if (s.mode === 'standalone') {
    return {
      label: 'Standalone site',
      title: 'This site works on its own, without a cloud link.',
      tone: 'neutral',
    };
  }
  if (s.mode === 'cloud') return { label: 'Cloud', title: 'The organisation-wide service.', tone: 'neutral' };
  const queued = s.queued > 0 ? ` · ${s.queued} change${s.queued === 1 ? '' : 's'} queued` : '';
  if (s.link === 'online') {
    return { label: `Cloud online${queued}`, title: 'Changes reach the cloud within seconds.', tone: 'ok' };
  }
  // linkSince: when the link went down; null when it has been down since the edge started, then the
  // last acknowledgement is the last sign of the link we know of.
  const since = s.linkSince
    ? ` since ${yardTime(s.linkSince, timeZone)}`
    : s.lastAckAt
      ? ` (last contact ${yardTime(s.lastAckAt, timeZone)})`
      : '';
  return {
    label: `Cloud offline${since}${queued}`,
    title: 'The gate keeps working; changes are kept here and sent when the link is back.',
    tone: 'warn',
  };
}
