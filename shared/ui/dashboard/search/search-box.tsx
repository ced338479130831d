import { useEffect, useRef, useState } from 'preact/hooks';
import { problemText } from '../records/http';
import { type Hit, searchEverywhere } from './data';
import { SearchResults } from './search-results';
import './search.css';

/** Wait this long after the last key before asking: one request per pause, not per key. */
const DEBOUNCE_MS = 250;

/**
 * Search everywhere (UI.md): one box in the header of every dashboard screen that finds a
 * trailer, truck, driver or carrier as it is typed, with where a unit is and since when. "/"
 * focuses it from anywhere but a field; Enter opens the best match; the arrows move through the
 * results; Escape closes them.
 */
export function SearchBox() {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLFormElement>(null);
  // The answer to the latest text only: a slow answer to an earlier text never replaces it.
  const asked = useRef(0);

  useEffect(() => {
    const slash = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.altKey || e.ctrlKey || e.metaKey) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', slash);
    return () => window.removeEventListener('keydown', slash);
  }, []);

  useEffect(() => {
    const text = q.trim();
    const ticket = ++asked.current;
    if (!text) {
      setHits(null);
      setProblem(null);
      return;
    }
    const timer = setTimeout(() => {
      searchEverywhere(text).then(
        (items) => {
          if (ticket !== asked.current) return;
          setHits(items);
          setProblem(null);
        },
        (err) => {
          if (ticket !== asked.current) return;
          setHits(null);
          setProblem(`The search did not answer: ${problemText(err, 'search')}`);
        },
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q]);

  const close = () => setOpen(false);
  const shown = open && q.trim() !== '';
  return (
    <search class="search-everywhere">
      <form
        ref={box}
        onSubmit={(e) => {
          // Enter opens the best match.
          e.preventDefault();
          box.current?.querySelector<HTMLAnchorElement>('.search-results a')?.click();
        }}
        onFocusOut={(e) => {
          // Closed when the focus leaves the box and its results (not when it moves into them).
          if (!box.current?.contains(e.relatedTarget as Node | null)) close();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && shown) {
            e.preventDefault();
            close();
            input.current?.focus();
          } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            // From the box into the results and between them; up from the first goes back to the box.
            const links = [...(box.current?.querySelectorAll<HTMLAnchorElement>('.search-results a') ?? [])];
            const at = links.indexOf(document.activeElement as HTMLAnchorElement);
            const next = e.key === 'ArrowDown' ? links[at + 1] : at > 0 ? links[at - 1] : input.current;
            if (!next || (at < 0 && e.key === 'ArrowUp')) return;
            e.preventDefault();
            setOpen(true);
            next.focus();
          }
        }}
      >
        <label for="search-everywhere" class="visually-hidden">
          Find a trailer, truck, driver or carrier, or an appointment by code or ref
        </label>
        <input
          id="search-everywhere"
          ref={input}
          type="search"
          autocomplete="off"
          placeholder="Find trailer, truck, driver, carrier, appointment  ( / )"
          aria-keyshortcuts="/"
          value={q}
          onInput={(e) => {
            setQ(e.currentTarget.value);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
        />
        {shown && (
          <SearchResults
            id="search-everywhere-results"
            q={q.trim()}
            hits={hits}
            problem={problem}
            onChosen={() => {
              close();
              setQ('');
            }}
          />
        )}
      </form>
    </search>
  );
}
