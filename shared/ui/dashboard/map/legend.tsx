import { BAND_LABEL, type Band } from './occupancy';

const BANDS: Band[] = ['empty', 'day', 'days', 'long'];

/** What the colours and patterns mean; each swatch is drawn as the map draws the band. */
export function Legend() {
  return (
    <ul class="map-legend" aria-label="Legend">
      {BANDS.map((band) => (
        <li key={band}>
          <svg viewBox="0 0 6 4" class="swatch" aria-hidden="true">
            <g class={`loc kind-spot band-${band}`}>
              <rect class="shape" x="0.2" y="0.2" width="5.6" height="3.6" />
              {band !== 'empty' && (
                <rect class="pattern" x="0.2" y="0.2" width="5.6" height="3.6" fill={`url(#map-${band})`} />
              )}
            </g>
          </svg>
          {BAND_LABEL[band]}
        </li>
      ))}
      <li>
        <svg viewBox="0 0 6 4" class="swatch" aria-hidden="true">
          <g class="loc kind-door band-empty">
            <rect class="shape" x="0.2" y="0.2" width="5.6" height="3.6" />
          </g>
        </svg>
        Door (thick edge)
      </li>
      <li>
        <svg viewBox="0 0 6 4" class="swatch" aria-hidden="true">
          <g class="loc kind-zone band-zone">
            <rect class="shape" x="0.2" y="0.2" width="5.6" height="3.6" />
          </g>
        </svg>
        Zone or building
      </li>
    </ul>
  );
}
