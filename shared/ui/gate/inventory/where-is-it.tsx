import { useRef, useState } from 'preact/hooks';
import { api, call } from '../../common/api/client';
import { FormMessage } from '../../common/components/field';
import { useShortcuts } from '../../common/shortcuts';
import { yardTime } from '../../common/time';
import { gates, timeZone, yards } from '../yard';
import { problemText } from './data';
import { findRows, type InventoryRow, unitKey } from './rows';

type Answer = { kind: 'ok' | 'warn' | 'error'; text: string } | null;

/**
 * "Where is it?" (Alt+W): a trailer number, typed as read (spaces optional). Rows of this yard that
 * match are marked and the first is scrolled into view; a trailer not in this yard is looked up
 * across the organisation and its last movement says where it was last seen.
 */
export function WhereIsIt(props: { rows: InventoryRow[]; yardId: string; onFound: (ids: string[]) => void }) {
  const [typed, setTyped] = useState('');
  const [answer, setAnswer] = useState<Answer>(null);
  const input = useRef<HTMLInputElement>(null);
  useShortcuts({ 'Alt+w': () => input.current?.focus() });

  const search = async (e: Event) => {
    e.preventDefault();
    const hits = findRows(props.rows, typed);
    props.onFound(hits.map((r) => r.id));
    if (hits[0]) {
      const row = document.getElementById(`trailer-${hits[0].id}`);
      row?.scrollIntoView({ block: 'center' });
      row?.focus({ preventScroll: true });
      const where = hits[0].spot ? `on ${hits[0].spot}` : 'in the yard, on no spot';
      setAnswer({
        kind: 'ok',
        text:
          hits.length === 1
            ? `${hits[0].number} is ${where}.`
            : `${hits.length} trailers match: ${hits.map((h) => `${h.number} (${h.spot || 'no spot'})`).join(', ')}.`,
      });
      return;
    }
    if (!unitKey(typed)) return setAnswer(null);
    setAnswer({ kind: 'warn', text: `Looking for ${typed.trim()} outside this yard…` });
    try {
      setAnswer({ kind: 'warn', text: await lastSeen(typed, props.yardId) });
    } catch (err) {
      setAnswer({ kind: 'error', text: `Could not look it up: ${problemText(err)}` });
    }
  };

  return (
    <form class="where" onSubmit={search}>
      <label for="where-is-it">
        Where is it? <kbd>Alt+W</kbd>
      </label>
      <div class="where-row">
        <input
          id="where-is-it"
          ref={input}
          value={typed}
          placeholder="Trailer number"
          autoComplete="off"
          aria-describedby="where-answer"
          aria-keyshortcuts="Alt+W"
          onInput={(e) => {
            setTyped(e.currentTarget.value);
            if (!e.currentTarget.value.trim()) {
              props.onFound([]);
              setAnswer(null);
            }
          }}
        />
        <button type="submit">Find</button>
      </div>
      <div id="where-answer" aria-live="polite">
        {answer && <FormMessage kind={answer.kind}>{answer.text}</FormMessage>}
      </div>
    </form>
  );
}

/** The answer for a trailer that is not in this yard: unknown, in another yard, or its last movement. */
async function lastSeen(typed: string, yardId: string): Promise<string> {
  const key = unitKey(typed);
  const page = await call(api.GET('/api/trailer', { params: { query: { q: typed.trim(), limit: 20 } } }));
  const trailer = page.items.find((t) => unitKey(t.number) === key) ?? page.items[0];
  if (!trailer) return `${typed.trim()} is not in this yard, and no trailer with that number is known.`;
  const yardName = (id: string | null) => yards.value.find((y) => y.id === id)?.name ?? 'another yard';
  if (trailer.yardId && trailer.yardId !== yardId) {
    return `${trailer.number} is not in this yard: it is in ${yardName(trailer.yardId)}.`;
  }
  const moves = await call(
    api.GET('/api/movement', { params: { query: { trailerId: trailer.id, limit: 1 } } }),
  );
  const last = moves.items[0];
  if (!last) return `${trailer.number} is not in this yard. It has never passed a gate.`;
  const gate = gates.value.find((g) => g.id === last.gateId)?.name;
  const how = last.direction === 'out' ? 'checked out' : 'checked in';
  return `${trailer.number} is not in this yard. Last seen: ${how} at ${yardName(last.yardId)}${gate ? `, ${gate}` : ''}, ${yardTime(last.at, timeZone.value)}.`;
}
