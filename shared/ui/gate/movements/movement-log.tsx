import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { FormMessage } from '../../common/components/field';
import { onLive } from '../../common/live';
import { gates } from '../yard';
import { loadMovements } from './data';
import { MovementFilters } from './filters';
import { type Movement, MovementRow } from './movement-row';
import type { NameKind } from './names';
import { type MovementFilter, matchesFilter } from './search';
import { useLocations, useNames } from './use-names';

const PAGE = 50;

function namesOf(rows: Movement[]): Array<[NameKind, string | null]> {
  return rows.flatMap(
    (m): Array<[NameKind, string | null]> => [
      ['trailer', m.trailerId],
      ['truck', m.truckId],
      ['driver', m.driverId],
      ['carrier', m.carrierId],
      ['user', m.operatorId],
    ],
  );
}

/**
 * The movement log, newest first: filters, a page at a time ("Load more" follows the cursor), and
 * new movements arriving live at the top when they match the filters.
 */
export function MovementLog(props: { yardId: string; timeZone: string }) {
  const { book, resolve } = useNames();
  const locations = useLocations(props.yardId);
  const [filter, setFilter] = useState<{ f: MovementFilter; label: string }>({ f: {}, label: '' });
  const [rows, setRows] = useState<Movement[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  const [problem, setProblem] = useState<string | null>(null);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [announce, setAnnounce] = useState('');
  const filterRef = useRef(filter.f);
  filterRef.current = filter.f;

  const load = useCallback(
    async (cursor?: string) => {
      setState('loading');
      try {
        const page = await loadMovements(props.yardId, filter.f, PAGE, cursor);
        await resolve(namesOf(page.items));
        setRows((prev) => (cursor ? [...prev, ...page.items] : page.items));
        setNext(page.nextCursor);
        setState('ready');
        setProblem(null);
      } catch (err) {
        setState('error');
        setProblem((err as Error).message);
      }
    },
    [props.yardId, filter],
  );

  useEffect(() => void load(), [load]);
  useEffect(
    () =>
      onLive(
        ['movement.created'],
        async (e) => {
          const m = (e.data as { data?: Movement }).data;
          if (!m || !matchesFilter(m, props.yardId, filterRef.current)) return;
          await resolve(namesOf([m]));
          setRows((prev) => (prev.some((r) => r.id === m.id) ? prev : [m, ...prev]));
          setFresh((s) => new Set(s).add(m.id));
          const trailer = book.name('trailer', m.trailerId) ?? book.name('truck', m.truckId) ?? '';
          setAnnounce(`New ${m.direction === 'in' ? 'check-in' : 'check-out'} ${trailer}`.trim());
        },
        () => void load(),
      ),
    [props.yardId, load],
  );

  const toggle = (id: string) =>
    setExpanded((s) => {
      const n = new Set(s);
      if (!n.delete(id)) n.add(id);
      return n;
    });
  const gateName = (id: string | null) => gates.value.find((g) => g.id === id)?.name;

  return (
    <>
      <MovementFilters timeZone={props.timeZone} onApply={(f, label) => setFilter({ f, label })} />
      <p class="visually-hidden" aria-live="polite">
        {announce}
      </p>
      {problem && (
        <FormMessage kind="error">
          The movements could not be loaded: {problem}{' '}
          <button type="button" class="link" onClick={() => void load()}>
            Try again
          </button>
        </FormMessage>
      )}
      {filter.label && <p>Showing the movements of {filter.label}.</p>}
      <table class="movement-table">
        <caption class="visually-hidden">Gate movements, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">In/out</th>
            <th scope="col">Trailer</th>
            <th scope="col">Truck</th>
            <th scope="col">Driver</th>
            <th scope="col">Carrier</th>
            <th scope="col">Seal</th>
            <th scope="col">Spot</th>
            <th scope="col">Warnings</th>
            <th scope="col">Clerk</th>
            <th scope="col">
              <span class="visually-hidden">Pictures and details</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <MovementRow
              key={m.id}
              m={m}
              book={book}
              locations={locations}
              gateName={gateName(m.gateId)}
              timeZone={props.timeZone}
              expanded={expanded.has(m.id)}
              fresh={fresh.has(m.id)}
              onToggle={() => toggle(m.id)}
            />
          ))}
        </tbody>
      </table>
      {state === 'ready' && rows.length === 0 && (
        <p class="muted">No movements match. Change or clear the filters.</p>
      )}
      {state === 'loading' && (
        <p class="muted" role="status">
          Loading movements…
        </p>
      )}
      {next && state !== 'loading' && (
        <button type="button" class="load-more" onClick={() => void load(next)}>
          Load more
        </button>
      )}
    </>
  );
}
