/**
 * Above the Expected list: the filter box (code, ref, carrier or trailer; Enter opens the check-in
 * of the one appointment left) and, beside it, "Show the completed ones" with its box before its
 * words. On a narrow screen the checkbox wraps under the filter box.
 */
export function ExpectedTools(props: {
  filter: string;
  onFilter: (text: string) => void;
  /** Enter in the box: true when it opened a check-in. */
  onEnter: () => boolean;
  completed: number;
  showDone: boolean;
  onShowDone: (shown: boolean) => void;
}) {
  return (
    <div class="field expected-tools">
      <label for="expected-filter">Find (code, ref, carrier or trailer)</label>
      <div class="expected-tools-row">
        <input
          id="expected-filter"
          type="search"
          value={props.filter}
          autoComplete="off"
          spellcheck={false}
          aria-describedby="expected-filter-hint"
          onInput={(e) => props.onFilter(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && props.onEnter()) e.preventDefault();
          }}
        />
        {props.completed > 0 && (
          <label class="show-done">
            <input
              type="checkbox"
              checked={props.showDone}
              onChange={(e) => props.onShowDone(e.currentTarget.checked)}
            />
            <span>Show the completed ones ({props.completed})</span>
          </label>
        )}
      </div>
      <small id="expected-filter-hint" class="hint">
        Enter opens the check-in when one appointment is left.
      </small>
    </div>
  );
}
