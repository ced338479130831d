import type { ErrorFigures } from './data';
import { count } from './occupancy';

function Line(props: { label: string; f: ErrorFigures; yardId: string; tone: 'warn' | 'bad' }) {
  const item = props.f.items.find((i) => i.yardId === props.yardId);
  const total = item?.total ?? 0;
  return (
    <p>
      <span class={total > 0 ? `badge ${props.tone}` : 'badge'}>
        {count.format(total)} {props.label}
      </span>{' '}
      {item && item.byStatus.length > 0 && (
        <span class="muted">
          {[...item.byStatus]
            .sort((a, b) => b.count - a.count)
            .map((s) => `${s.status}: ${count.format(s.count)}`)
            .join(', ')}
        </span>
      )}
    </p>
  );
}

/** "24 h", "15 min", "1 h 30 min": the window as its setting says it. */
function windowWords(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Refused (4xx) and failed (5xx) API answers about this yard in the recent window. */
export function ErrorFiguresPanel(props: { e4: ErrorFigures; e5: ErrorFigures; yardId: string }) {
  const window = Date.parse(props.e4.to) - Date.parse(props.e4.from);
  return (
    <section class="panel figure" aria-labelledby="errors-heading">
      <h2 id="errors-heading">API errors, last {windowWords(window)}</h2>
      <Line label="refused requests (4xx)" f={props.e4} yardId={props.yardId} tone="warn" />
      <Line label="server errors (5xx)" f={props.e5} yardId={props.yardId} tone="bad" />
      <p class="muted small-note">
        Refused: bad input or a missing right, usually a device or integration to check. Server errors: tell
        your administrator.
      </p>
    </section>
  );
}
