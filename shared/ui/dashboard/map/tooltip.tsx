import { LOAD_LABEL } from '../../common/inventory/labels';
import { duration, yardTime } from '../../common/time';
import { BAND_LABEL, KIND_LABEL, type Occupancy } from './occupancy';
import type { Location } from './plan';

/**
 * The details of the location under the pointer or with the focus: its trailers with carrier,
 * load status and dwell. Beside the location, inside the map's frame. The same words are the
 * location's accessible name, so this is for the eye only (aria-hidden).
 */
export function Tooltip(props: {
  frame: HTMLElement;
  anchor: Element | null;
  location: Location;
  occupancy: Occupancy | undefined;
  timeZone: string;
}) {
  if (!props.anchor) return null;
  const box = props.anchor.getBoundingClientRect();
  const outer = props.frame.getBoundingClientRect();
  const right = box.right - outer.left + 8;
  const fitsRight = right + 260 < outer.width;
  const style = {
    top: `${Math.max(0, box.top - outer.top)}px`,
    left: fitsRight ? `${right}px` : undefined,
    right: fitsRight ? undefined : `${outer.right - box.left + 8}px`,
  };
  const { location, occupancy } = props;
  return (
    <div class="map-tooltip" style={style} aria-hidden="true">
      <strong>{location.name}</strong> <span class="muted">{KIND_LABEL[location.kind]}</span>
      {location.status === 'inactive' && <div>Inactive</div>}
      {location.kind === 'zone' ? null : occupancy ? (
        <>
          <div class="muted">{BAND_LABEL[occupancy.band]}</div>
          <dl>
            {occupancy.trailers.map((t) => (
              <div key={t.id} class="tip-trailer">
                <dt>{t.number}</dt>
                <dd>{t.carrier || 'No carrier'}</dd>
                <dd>{LOAD_LABEL[t.loadStatus]}</dd>
                <dd>
                  {duration(t.dwellMs)} in the yard
                  {t.arrivedAt ? `, since ${yardTime(t.arrivedAt, props.timeZone)}` : ''}
                </dd>
              </div>
            ))}
          </dl>
        </>
      ) : (
        <div>Empty</div>
      )}
    </div>
  );
}
