import { duration } from '../../common/time';
import { timeZone as chosenZone, yards } from '../scope';
import { DeadLetters } from './dead-letters';
import { SiteGates } from './gate-states';
import {
  count,
  lastSeenWords,
  linkWords,
  type SiteStatus,
  type SiteSummary,
  skewWords,
  sortSites,
  usualVersion,
} from './site-words';

/** A site's times read in its own yard's zone (a site usually runs one yard); else the chosen yard's. */
function zoneOf(siteId: string): string {
  return yards.value.find((y) => y.siteId === siteId)?.timeZone ?? chosenZone.value;
}

export function SummaryLine(props: { summary: SiteSummary; sites: number }) {
  const s = props.summary;
  return (
    <p class="site-summary" role="status">
      <span class="badge ok">{count.format(s.online)} online</span>{' '}
      <span class={s.offline > 0 ? 'badge bad' : 'badge'}>{count.format(s.offline)} offline</span>{' '}
      <span>
        {count.format(s.queued)} change{s.queued === 1 ? '' : 's'} queued for the sites
      </span>
      {s.deadLetters > 0 && <span> · {count.format(s.deadLetters)} dead letters</span>}
      <span class="muted">
        {' '}
        · {count.format(props.sites)} {props.sites === 1 ? 'site' : 'sites'} in all
      </span>
    </p>
  );
}

/** Every site linked to the cloud, offline ones first. */
export function SiteTable(props: {
  sites: SiteStatus[];
  now: number;
  mayRetry: boolean;
  onChanged: () => void;
}) {
  const usual = usualVersion(props.sites);
  return (
    <table class="site-table">
      <caption class="visually-hidden">Sites linked to the cloud, offline sites first</caption>
      <thead>
        <tr>
          <th scope="col">Site</th>
          <th scope="col">Link</th>
          <th scope="col">Last seen</th>
          <th scope="col" class="num">
            Lag
          </th>
          <th scope="col" class="num">
            Queued to site
          </th>
          <th scope="col" class="num">
            Site's own queue
          </th>
          <th scope="col">Dead letters</th>
          <th scope="col">Version</th>
          <th scope="col">Gates</th>
        </tr>
      </thead>
      <tbody>
        {sortSites(props.sites).map((s) => {
          const tz = zoneOf(s.siteId);
          const skew = skewWords(s.clockSkewMs);
          return (
            <tr key={s.siteId} data-site-id={s.siteId} class={s.link === 'online' ? '' : 'site-down'}>
              <th scope="row">
                {s.name}
                <div class="muted small-note">{s.siteId}</div>
              </th>
              <td>
                <span class={`badge ${s.link === 'online' ? 'ok' : 'bad'}`}>
                  {s.link === 'online' ? 'Online' : 'Offline'}
                </span>
                <div class="small-note">{linkWords(s.link, s.linkSince, tz, props.now)}</div>
              </td>
              <td>
                {lastSeenWords(s.lastSeenAt, tz, props.now)}
                {skew && <div class="badge warn">{skew}</div>}
              </td>
              <td class="num">{s.lagMs > 0 ? duration(s.lagMs) : '—'}</td>
              <td class="num">{count.format(s.queued)}</td>
              <td class="num">{count.format(s.reportedQueued)}</td>
              <td>
                <DeadLetters
                  n={s.deadLetters}
                  peer={s.siteId}
                  siteName={s.name}
                  mayRetry={props.mayRetry}
                  onDone={props.onChanged}
                />
              </td>
              <td>
                {s.version ?? <span class="muted">not reported</span>}
                {s.schemaV !== null && <div class="muted small-note">schema {s.schemaV}</div>}
                {usual && s.version && s.version !== usual && (
                  <div class="badge warn">differs from most sites ({usual})</div>
                )}
              </td>
              <td>
                <SiteGates siteId={s.siteId} siteName={s.name} gates={s.gates} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
