import { useEffect, useRef, useState } from 'preact/hooks';
import { matchUnits, type YardUnit } from './form';

/**
 * Finds the unit to check out: type a trailer number or truck plate, arrows move through the
 * matches of this yard's units, Enter picks (an ARIA 1.2 combobox with a listbox popup).
 */
export function UnitSearch(props: {
  units: YardUnit[];
  onPick: (u: YardUnit) => void;
  error?: string | undefined;
  autoFocus?: boolean;
}) {
  const [typed, setTyped] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (props.autoFocus) input.current?.focus();
  }, [props.autoFocus]);
  const matches = matchUnits(props.units, typed);
  const pick = (u: YardUnit | undefined) => {
    if (!u) return;
    props.onPick(u);
    setTyped('');
    setOpen(false);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setOpen(true);
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (matches.length ? (i + step + matches.length) % matches.length : 0));
    } else if (e.key === 'Enter' && open && matches.length > 0) {
      e.preventDefault();
      pick(matches[Math.min(active, matches.length - 1)]);
    } else if (e.key === 'Escape' && open) {
      e.stopPropagation();
      setOpen(false);
    }
  };
  const listId = 'unit-options';
  const expanded = open && typed.trim() !== '';
  return (
    <div class={props.error ? 'field combo has-error' : 'field combo'}>
      <label for="unit-search">Trailer number or truck plate</label>
      <div class="combo-box">
        <input
          id="unit-search"
          ref={input}
          role="combobox"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={expanded && matches[active] ? `unit-${matches[active].id}` : undefined}
          aria-invalid={props.error ? true : undefined}
          aria-describedby={props.error ? 'unit-search-error' : 'unit-search-hint'}
          autoComplete="off"
          value={typed}
          placeholder="e.g. LSLG5300"
          onInput={(e) => {
            setTyped(e.currentTarget.value);
            setActive(0);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => setTimeout(() => setOpen(false), 150)}
        />
        <div
          id={listId}
          role="listbox"
          aria-label="Units in the yard"
          class="options"
          hidden={!expanded || matches.length === 0}
        >
          {matches.map((u, i) => (
            <div
              key={u.id}
              id={`unit-${u.id}`}
              role="option"
              tabIndex={-1}
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(u);
              }}
            >
              <strong>{u.label}</strong>{' '}
              <span class="muted">
                {u.kind === 'trailer' ? 'Trailer' : 'Truck'}
                {u.detail && ` · ${u.detail}`}
              </span>
            </div>
          ))}
        </div>
        {expanded && matches.length === 0 && (
          <p class="options none" role="status">
            No unit in this yard matches “{typed.trim()}”.
          </p>
        )}
      </div>
      {props.error ? (
        <small id="unit-search-error" class="error" role="alert">
          {props.error}
        </small>
      ) : (
        <small id="unit-search-hint" class="hint">
          Type part of the number, then ↓ ↑ and Enter. Or pick it in the yard list.
        </small>
      )}
    </div>
  );
}
