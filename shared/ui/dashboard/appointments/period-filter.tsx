import { useState } from 'preact/hooks';
import type { Carrier } from '../billing/data';
import type { Period } from './report-values';

/**
 * The report's period (two yard-local dates, both included) and, when `carriers` is given, the
 * carrier. A carrier picked applies at once; dates on "Show" (a date being typed must not reload
 * the report at each digit).
 */
export function PeriodFilter(props: {
  id: string;
  period: Period;
  carrierId: string;
  carriers?: Carrier[];
  onChoose: (period: Period, carrierId: string) => void;
}) {
  const [from, setFrom] = useState(props.period.from);
  const [to, setTo] = useState(props.period.to);
  return (
    <form
      class="report-filters"
      aria-label={props.carriers ? 'Period and carrier' : 'Period'}
      onSubmit={(e) => {
        e.preventDefault();
        if (from && to) props.onChoose({ from, to }, props.carrierId);
      }}
    >
      <div>
        <label for={`${props.id}-from`}>From</label>
        <input
          id={`${props.id}-from`}
          type="date"
          value={from}
          required
          onInput={(e) => setFrom(e.currentTarget.value)}
        />
      </div>
      <div>
        <label for={`${props.id}-to`}>To (included)</label>
        <input
          id={`${props.id}-to`}
          type="date"
          value={to}
          required
          onInput={(e) => setTo(e.currentTarget.value)}
        />
      </div>
      <button type="submit">Show</button>
      {props.carriers && (
        <div>
          <label for={`${props.id}-carrier`}>Carrier</label>
          <select
            id={`${props.id}-carrier`}
            value={props.carrierId}
            onChange={(e) => props.onChoose(props.period, e.currentTarget.value)}
          >
            <option value="">Every carrier</option>
            {props.carriers.map((c) => (
              <option key={c.id} value={c.id}>
                {c.scac ? `${c.name} (${c.scac})` : c.name}
              </option>
            ))}
          </select>
        </div>
      )}
    </form>
  );
}
