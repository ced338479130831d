import { useEffect, useMemo, useState } from 'preact/hooks';
import { problemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { yardTime } from '../../common/time';
import { chooseYard, timeZone, yard, yards } from '../scope';
import { useReloadOnReconnect } from '../sites/use-reconnect';
import { AllYards } from '../yard/all-yards';
import { loadYardFigures, type YardFiguresData } from '../yard/data';
import { DwellTable } from '../yard/dwell-table';
import { ErrorFiguresPanel } from '../yard/error-figures';
import { useLiveVersion } from '../yard/live-refresh';
import { Movements } from '../yard/movements';
import { longestDwell } from '../yard/occupancy';
import { TaskFigures } from '../yard/task-figures';
import { LoadAndCarrier, OccupancyPanel } from '../yard/trailer-figures';
import '../yard/yard.css';

/**
 * The chosen yard's figures: occupancy against capacity, trailers by load and carrier, the longest
 * dwell, movements over time, tasks and API errors; an overview of every yard when there are
 * several. Refreshed a few seconds after live events about the yard, never polled.
 */
export function YardFigures() {
  const y = yard.value;
  if (!y) {
    return (
      <section>
        <h1>Yard figures</h1>
        <p>No yard is open to you. An admin adds yards under Master data, or gives your user a yard.</p>
      </section>
    );
  }
  return <Figures key={y.id} yardId={y.id} />;
}

function Figures(props: { yardId: string }) {
  const y = yard.value!;
  const tz = timeZone.value;
  const live = useLiveVersion(props.yardId);
  const [reconnects, setReconnects] = useState(0);
  useReloadOnReconnect(useMemo(() => () => setReconnects((n) => n + 1), []));
  const version = live + reconnects;
  const [data, setData] = useState<YardFiguresData | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const [loadedAt, setLoadedAt] = useState(Date.now());
  // Dwell grows while the screen is open: re-render each minute (no request).
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(tick);
  }, []);

  useEffect(() => {
    let alive = true;
    loadYardFigures(props.yardId).then(
      (d) => {
        if (!alive) return;
        setData(d);
        setNow(Date.now());
        setLoadedAt(Date.now());
        setProblem(null);
      },
      (err) => alive && setProblem(problemText(err)),
    );
    return () => {
      alive = false;
    };
  }, [props.yardId, version]);

  const dwell = useMemo(
    () => (data ? longestDwell(data.inYard.longest, data.carriers, data.locations, now) : []),
    [data, now],
  );

  return (
    <section class="yard-screen" aria-labelledby="yard-heading">
      <h1 id="yard-heading">
        {y.name} ({y.code})
      </h1>
      {data && (
        <p class="muted updated" aria-live="polite">
          Figures as of {yardTime(new Date(loadedAt).toISOString(), tz, now)} ({tz}); they update as the yard
          works.
        </p>
      )}
      {problem && (
        <FormMessage kind="error">
          The yard's figures could not be read: {problem} They are read again with the next change in the
          yard.
        </FormMessage>
      )}
      {!data && !problem && <p class="muted">Loading the yard's figures…</p>}
      <div class="figures">
        {data && (
          <>
            <OccupancyPanel o={data.occupancy} averageDwellMs={data.trailers?.averageDwellMs ?? null} />
            <LoadAndCarrier f={data.trailers} carriers={data.carriers} />
            <div class="figure-stack">
              <TaskFigures t={data.tasks} />
              <ErrorFiguresPanel e4={data.errors4xx} e5={data.errors5xx} yardId={props.yardId} />
            </div>
          </>
        )}
        <Movements yardId={props.yardId} timeZone={tz} version={version} />
        {data && <DwellTable rows={dwell} total={data.inYard.trailers} timeZone={tz} now={now} />}
        {yards.value.length > 1 && (
          <AllYards yards={yards.value} chosen={props.yardId} version={version} onChoose={chooseYard} />
        )}
      </div>
    </section>
  );
}
