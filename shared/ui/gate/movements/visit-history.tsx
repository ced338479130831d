import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { FormMessage } from '../../common/components/field';
import { onLive } from '../../common/live';
import { duration, yardDateTime, yardTime } from '../../common/time';
import { loadClosedVisits } from './data';
import { useNames } from './use-names';

type Visit = Schemas['Visit'];

/** Closed visits (in and out of the yard), newest arrival first, with how long each stayed. */
export function VisitHistory(props: { yardId: string; timeZone: string }) {
  const { book, resolve } = useNames();
  const [rows, setRows] = useState<Visit[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  const [problem, setProblem] = useState<string | null>(null);

  const load = useCallback(
    async (cursor?: string) => {
      setState('loading');
      try {
        const page = await loadClosedVisits(props.yardId, cursor);
        await resolve(
          page.items.flatMap(
            (v) =>
              [
                ['trailer', v.trailerId],
                ['truck', v.truckId],
                ['carrier', v.carrierId],
              ] as const,
          ),
        );
        setRows((prev) => (cursor ? [...prev, ...page.items] : page.items));
        setNext(page.nextCursor);
        setState('ready');
      } catch (err) {
        setState('error');
        setProblem((err as Error).message);
      }
    },
    [props.yardId],
  );
  useEffect(() => void load(), [load]);
  // A check-out closes a visit: show it without reload.
  useEffect(
    () =>
      onLive(
        ['movement.created'],
        (e) => {
          const m = (e.data as { data?: { direction?: string; yardId?: string } }).data;
          if (m?.direction === 'out' && m.yardId === props.yardId) void load();
        },
        () => void load(),
      ),
    [load],
  );

  const time = (iso: string | null) => (
    <time dateTime={iso ?? undefined} title={yardDateTime(iso, props.timeZone)}>
      {yardTime(iso, props.timeZone)}
    </time>
  );
  return (
    <>
      {problem && state === 'error' && (
        <FormMessage kind="error">The visits could not be loaded: {problem}</FormMessage>
      )}
      <table class="visit-table">
        <caption class="visually-hidden">Closed visits, newest arrival first</caption>
        <thead>
          <tr>
            <th scope="col">Unit</th>
            <th scope="col">Carrier</th>
            <th scope="col">In</th>
            <th scope="col">Out</th>
            <th scope="col">Dwell</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((v) => (
            <tr key={v.id}>
              <td>
                {v.unitKind === 'trailer'
                  ? `Trailer ${book.name('trailer', v.trailerId) ?? '…'}`
                  : `Truck ${book.name('truck', v.truckId) ?? '…'}`}
              </td>
              <td>{book.name('carrier', v.carrierId) ?? ''}</td>
              <td>{time(v.inAt)}</td>
              <td>{time(v.outAt)}</td>
              <td>{duration(v.dwellMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {state === 'ready' && rows.length === 0 && <p class="muted">No visit has ended yet in this yard.</p>}
      {state === 'loading' && (
        <p class="muted" role="status">
          Loading visits…
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
