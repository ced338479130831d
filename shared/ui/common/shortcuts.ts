import { useEffect, useRef } from 'preact/hooks';

/**
 * Keyboard shortcuts of a screen: `{ 'Alt+i': fn, 'F2': fn }`. Alt-combinations work while typing
 * in a field (that is what they are for at a gate desk); plain keys only when no field has focus.
 */
export function useShortcuts(map: Record<string, (e: KeyboardEvent) => void>): void {
  // The handlers of the latest render, set while rendering: a key pressed as soon as a screen shows
  // what was typed (before its effects run, which a busy machine delays) acts on that, never on
  // an earlier render's values (a stale Ctrl+Enter that submitted nothing).
  const latest = useRef(map);
  latest.current = map;
  useEffect(() => {
    const handler = (e: KeyboardEvent) => {
      const key = shortcutName(e);
      const action = latest.current[key];
      if (!action) return;
      const typing = e.target instanceof HTMLElement && e.target.closest('input, textarea, select') !== null;
      if (typing && !e.altKey && !e.ctrlKey && !/^F\d+$|^Escape$/.test(e.key)) return;
      e.preventDefault();
      action(e);
    };
    window.addEventListener('keydown', handler);
    return () => window.removeEventListener('keydown', handler);
  }, []);
}

/** "Alt+i", "Ctrl+Enter", "F2", "Escape": modifiers then the key, letters in lower case. */
export function shortcutName(
  e: Pick<KeyboardEvent, 'altKey' | 'ctrlKey' | 'shiftKey' | 'key' | 'code'>,
): string {
  // With Alt held, some layouts turn the key into another character: use the physical key for letters.
  const letter = /^Key([A-Z])$/.exec(e.code)?.[1]?.toLowerCase();
  const key = e.altKey && letter ? letter : e.key.length === 1 ? e.key.toLowerCase() : e.key;
  return [e.ctrlKey && 'Ctrl', e.altKey && 'Alt', e.shiftKey && e.key.length > 1 && 'Shift', key]
    .filter(Boolean)
    .join('+');
}
