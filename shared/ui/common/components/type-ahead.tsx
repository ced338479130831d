import type { ComponentChildren, Ref } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface TypeAheadProps<T> {
  id: string;
  /** What is typed (kept by the screen, so a draft survives a reload). */
  text: string;
  onText: (text: string) => void;
  /** The candidates for a query, best first (ranked by type-ahead-rank.ts); aborted when stale. */
  search: (query: string, signal: AbortSignal) => Promise<T[]>;
  itemKey: (item: T) => string;
  /** How an option reads in the list (its accessible name). */
  renderItem: (item: T) => ComponentChildren;
  onSelect: (item: T) => void;
  minChars?: number;
  debounceMs?: number;
  invalid?: boolean;
  describedBy?: string | undefined;
  placeholder?: string;
  inputRef?: Ref<HTMLInputElement>;
  /** Extra attributes for the input (autocomplete hints, maxLength). */
  maxLength?: number;
}

type Status = { kind: 'idle' } | { kind: 'searching' } | { kind: 'done'; count: number } | { kind: 'failed' };

/**
 * A type-ahead field following the ARIA combobox pattern: an input with a listbox of suggestions.
 * Typing searches after a short pause (only the answer to the latest query is shown); Down/Up move
 * through the list, Enter picks, Esc closes it (and then leaves Esc to the screen), Tab moves on.
 * Enter with the list closed is the form's Enter.
 */
export function TypeAhead<T>(props: TypeAheadProps<T>) {
  const [items, setItems] = useState<T[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const seq = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const abort = useRef<AbortController | undefined>(undefined);
  const listId = `${props.id}-list`;
  const min = props.minChars ?? 1;

  useEffect(
    () => () => {
      clearTimeout(timer.current);
      abort.current?.abort();
    },
    [],
  );

  const runSearch = (query: string) => {
    clearTimeout(timer.current);
    abort.current?.abort();
    const mine = ++seq.current;
    if (query.trim().length < min) {
      setItems([]);
      setOpen(false);
      setStatus({ kind: 'idle' });
      return;
    }
    setStatus({ kind: 'searching' });
    timer.current = setTimeout(() => {
      const controller = new AbortController();
      abort.current = controller;
      props.search(query.trim(), controller.signal).then(
        (found) => {
          if (mine !== seq.current) return; // a newer query is under way: drop this answer
          setItems(found);
          setActive(found.length > 0 ? 0 : -1);
          setOpen(found.length > 0);
          setStatus({ kind: 'done', count: found.length });
        },
        () => {
          if (mine !== seq.current || controller.signal.aborted) return;
          setItems([]);
          setOpen(false);
          setStatus({ kind: 'failed' });
        },
      );
    }, props.debounceMs ?? 150);
  };

  const pick = (item: T) => {
    seq.current++; // an answer still on its way must not reopen the list
    clearTimeout(timer.current);
    setOpen(false);
    setStatus({ kind: 'idle' });
    props.onSelect(item);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) {
        if (items.length > 0) setOpen(true);
        else runSearch(props.text);
        return;
      }
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (i + step + items.length) % items.length);
    } else if (e.key === 'Enter' && open && active >= 0 && items[active] !== undefined) {
      e.preventDefault();
      e.stopPropagation();
      pick(items[active] as T);
    } else if (e.key === 'Escape' && open) {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  };

  const optionId = (i: number) => `${props.id}-opt-${i}`;
  return (
    <div class="type-ahead">
      <input
        id={props.id}
        ref={props.inputRef}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
        aria-invalid={props.invalid ? true : undefined}
        aria-describedby={[props.describedBy, `${props.id}-status`].filter(Boolean).join(' ')}
        autoComplete="off"
        spellcheck={false}
        placeholder={props.placeholder}
        maxLength={props.maxLength}
        value={props.text}
        onInput={(e) => {
          const text = e.currentTarget.value;
          props.onText(text);
          runSearch(text);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <div id={listId} role="listbox" class="type-ahead-list" hidden={!open} aria-label="Suggestions">
        {open &&
          items.map((item, i) => (
            // The options are reached with the arrow keys from the input (aria-activedescendant), as the
            // combobox pattern wants: they take no focus and need no key handler of their own.
            // biome-ignore lint/a11y/useFocusableInteractive: see above
            // biome-ignore lint/a11y/useKeyWithClickEvents: see above
            <div
              key={props.itemKey(item)}
              id={optionId(i)}
              role="option"
              aria-selected={i === active}
              class={i === active ? 'active' : undefined}
              // mousedown would blur the input and close the list before the click lands
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => pick(item)}
            >
              {props.renderItem(item)}
            </div>
          ))}
      </div>
      <small id={`${props.id}-status`} class="type-ahead-status" aria-live="polite">
        {statusText(status)}
      </small>
    </div>
  );
}

function statusText(s: Status): string {
  if (s.kind === 'searching') return 'Searching…';
  if (s.kind === 'failed') return 'The search did not answer; type on or try again.';
  if (s.kind === 'done' && s.count > 0)
    return `${s.count} match${s.count === 1 ? '' : 'es'}: Down arrow to choose`;
  return '';
}
