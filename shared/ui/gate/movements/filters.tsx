import { useState } from 'preact/hooks';
import { FormMessage } from '../../common/components/field';
import { yardToday } from '../../common/time';
import { findUnits } from './data';
import { rangeQuery } from './date-range';
import { type Direction, type MovementFilter, type SearchTarget, searchTarget, type Unit } from './search';

/**
 * The movement log's filters: direction, yard days (from..to, both included, in the yard's zone)
 * and one box for a trailer number or a truck plate. Enter applies them.
 */
export function MovementFilters(props: {
  timeZone: string;
  onApply: (f: MovementFilter, label: string) => void;
}) {
  const [direction, setDirection] = useState<Direction | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const [target, setTarget] = useState<SearchTarget | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const today = yardToday(props.timeZone);

  const apply = (unit: Unit | undefined) => {
    const f: MovementFilter = {
      ...(direction ? { direction } : {}),
      ...rangeQuery(from, to, props.timeZone),
      ...(unit?.kind === 'trailer'
        ? { trailerId: unit.id }
        : unit?.kind === 'truck'
          ? { truckId: unit.id }
          : {}),
    };
    props.onApply(f, unit?.label ?? '');
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    setTarget(null);
    if (!text.trim()) return apply(undefined);
    try {
      const t = searchTarget(text, await findUnits(text.trim()));
      setTarget(t);
      if (t.kind === 'unit') apply(t.unit);
    } catch (err) {
      setProblem((err as Error).message);
    }
  };
  const clear = () => {
    setDirection('');
    setFrom('');
    setTo('');
    setText('');
    setTarget(null);
    props.onApply({}, '');
  };

  return (
    <form class="movement-filters panel" onSubmit={submit} aria-label="Filter movements">
      <label>
        Direction
        <select value={direction} onChange={(e) => setDirection(e.currentTarget.value as Direction | '')}>
          <option value="">In and out</option>
          <option value="in">In (check-in)</option>
          <option value="out">Out (check-out)</option>
        </select>
      </label>
      <label>
        From day
        <input type="date" value={from} max={today} onInput={(e) => setFrom(e.currentTarget.value)} />
      </label>
      <label>
        To day
        <input type="date" value={to} max={today} onInput={(e) => setTo(e.currentTarget.value)} />
      </label>
      <label class="grow">
        Trailer number or truck plate
        <input
          type="search"
          value={text}
          autoComplete="off"
          placeholder="e.g. LSLG5300 or TX8100"
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      <div class="filter-actions">
        <button type="submit" class="primary">
          Show
        </button>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
      {problem && <FormMessage kind="error">The search failed: {problem} Try again.</FormMessage>}
      {target?.kind === 'none' && (
        <FormMessage kind="warn">
          No trailer or truck matches “{text.trim()}”. Check the number or plate, or clear the search.
        </FormMessage>
      )}
      {target?.kind === 'choose' && (
        <fieldset class="choose">
          <legend>Several match; pick one:</legend>
          {target.options.map((u) => (
            <button key={u.id} type="button" onClick={() => apply(u)}>
              {u.label}
            </button>
          ))}
        </fieldset>
      )}
      <p class="muted filter-zone">Days are the yard's ({props.timeZone}).</p>
    </form>
  );
}
