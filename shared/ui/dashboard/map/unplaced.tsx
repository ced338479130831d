import { KIND_LABEL } from './occupancy';
import type { Location } from './plan';

/**
 * The locations without a place on the plan. In edit mode each can be chosen to be placed: the
 * next click on the plan puts it there (or "Put it in the middle", from the keyboard).
 */
export function Unplaced(props: {
  locations: Location[];
  editing: boolean;
  mayEdit: boolean;
  placing: Location | null;
  onPlace: (location: Location | null) => void;
  onCentre: () => void;
}) {
  return (
    <section class="unplaced" aria-labelledby="unplaced-heading">
      <h2 id="unplaced-heading">Not on the plan ({props.locations.length})</h2>
      {props.locations.length === 0 ? (
        <p class="muted">Every location is on the plan.</p>
      ) : (
        <>
          <p class="muted">
            {props.editing
              ? 'Choose one, then click on the plan where it goes.'
              : props.mayEdit
                ? 'Use "Edit layout" to place them.'
                : 'Someone who may edit locations can place them.'}
          </p>
          <ul>
            {props.locations.map((l) => (
              <li key={l.id}>
                {props.editing ? (
                  <button
                    type="button"
                    class={props.placing?.id === l.id ? 'primary' : ''}
                    aria-pressed={props.placing?.id === l.id}
                    onClick={() => props.onPlace(props.placing?.id === l.id ? null : l)}
                  >
                    Place {l.name}
                  </button>
                ) : (
                  <span>{l.name}</span>
                )}{' '}
                <span class="muted">{KIND_LABEL[l.kind]}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {props.placing && (
        <p class="placing-hint" role="status">
          Click on the plan where {props.placing.name} goes.{' '}
          <button type="button" class="link" onClick={props.onCentre}>
            Put it in the middle
          </button>{' '}
          <button type="button" class="link" onClick={() => props.onPlace(null)}>
            Stop placing
          </button>
        </p>
      )}
    </section>
  );
}
