import { useRef, useState } from 'preact/hooks';
import { problemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { exactRows, findRows, type InventoryRow, unitKey } from '../../common/inventory/rows';
import { useShortcuts } from '../../common/shortcuts';
import { yardTime } from '../../common/time';
import { gates, timeZone, yards } from '../yard';
import { lastMovementOf, trailersNumbered } from './data';

type Answer = { kind: 'ok' | 'warn' | 'error'; text: string } | null;

/**
 * "Where is it?" (Alt+W): a trailer number, typed as read (spaces optional). Exact numbers first: a
 * row of this yard with that number, else a known trailer with that number elsewhere (in another
 * yard, or gone: when and through which gate it left). Only when no trailer has that number are the
 * rows of this yard containing it offered (a clerk often reads only the digits off the trailer).
 */
export function WhereIsIt(props: { rows: InventoryRow[]; yardId: string; onFound: (ids: string[]) => void }) {
  const [typed, setTyped] = useState('');
  const [answer, setAnswer] = useState<Answer>(null);
  const input = useRef<HTMLInputElement>(null);
  useShortcuts({ 'Alt+w': () => input.current?.focus() });

  const show = (hits: InventoryRow[]) => {
    props.onFound(hits.map((r) => r.id));
    if (!hits[0]) return;
    const row = document.getElementById(`trailer-${hits[0].id}`);
    row?.scrollIntoView({ block: 'center' });
    row?.focus({ preventScroll: true });
  };

  const search = async (e: Event) => {
    e.preventDefault();
    const exact = exactRows(props.rows, typed);
    show(exact);
    if (exact[0]) {
      const where = exact[0].spot ? `on ${exact[0].spot}` : 'in the yard, on no spot';
      setAnswer({
        kind: 'ok',
        text:
          exact.length === 1
            ? `${exact[0].number} is ${where}.`
            : `${exact.length} trailers have this number: ${spots(exact)}.`,
      });
      return;
    }
    if (!unitKey(typed)) return setAnswer(null);
    setAnswer({ kind: 'warn', text: `Looking for ${typed.trim()} outside this yard…` });
    try {
      const elsewhere = await exactElsewhere(typed, props.yardId);
      if (elsewhere) return setAnswer({ kind: 'warn', text: elsewhere });
      const partial = findRows(props.rows, typed);
      show(partial);
      setAnswer({
        kind: 'warn',
        text:
          partial.length > 0
            ? `No trailer has the number ${typed.trim()}. In this yard, ${partial.length === 1 ? 'this one contains it' : 'these contain it'}: ${spots(partial)}.`
            : `${typed.trim()} is not in this yard, and no trailer with that number is known.`,
      });
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

function spots(rows: InventoryRow[]): string {
  return rows.map((h) => `${h.number} (${h.spot || 'no spot'})`).join(', ');
}

/**
 * A trailer with exactly this number that is not in this yard: in another yard, or when and
 * through which gate it left. Null when no trailer has this number.
 */
async function exactElsewhere(typed: string, yardId: string): Promise<string | null> {
  const found = await trailersNumbered(typed.trim());
  const trailer = found.find((t) => t.yardId && t.yardId !== yardId) ?? found[0];
  if (!trailer) return null;
  const yardName = (id: string | null) => yards.value.find((y) => y.id === id)?.name ?? 'another yard';
  if (trailer.yardId && trailer.yardId !== yardId) {
    return `${trailer.number} is not in this yard: it is in ${yardName(trailer.yardId)}.`;
  }
  const last = await lastMovementOf(trailer.id);
  if (!last) return `${trailer.number} is not in this yard. It has never passed a gate.`;
  const gate = gates.value.find((g) => g.id === last.gateId)?.name;
  const at = yardTime(last.at, timeZone.value);
  if (last.direction === 'out') {
    return `${trailer.number} is not in this yard: it left ${yardName(last.yardId)} at ${at}${gate ? ` through ${gate}` : ' (no gate recorded)'}.`;
  }
  return `${trailer.number} is not in this yard. Last seen: checked in at ${yardName(last.yardId)}${gate ? `, ${gate}` : ''}, ${at}.`;
}
