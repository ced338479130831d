import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { yardDateTime } from '../../common/time';
import './receipt.css';

/** What the driver's receipt says (UI.md "Gate house": trailer, spot or door, time, code). */
export interface ReceiptFacts {
  yardName: string | null;
  trailer: string | null;
  truck: string | null;
  /** The spot or door the trailer goes to; null when the yard places it later. */
  place: string | null;
  /** ISO time of the check-in. */
  at: string;
  /** The appointment code; null for a walk-in. */
  code: string | null;
  gate: string | null;
  timeZone: string;
}

/**
 * The receipt, mounted as a direct child of <body> while the check-in's confirmation shows, so
 * the print stylesheet (receipt.css) can print it alone: the browser's print (the confirmation's
 * "Print receipt", or Ctrl+P) then gives the driver a slip on an 80 mm receipt printer or a plain
 * page. Hidden on screen. A mount of our own rather than a portal: preact/compat is not in the
 * gate's bundle for this one use.
 */
export function PrintableReceipt(props: ReceiptFacts) {
  const host = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const el = document.createElement('div');
    el.className = 'print-receipt';
    document.body.append(el);
    host.current = el;
    return () => {
      render(null, el);
      el.remove();
      host.current = null;
    };
  }, []);
  useEffect(() => {
    if (host.current) render(<Receipt {...props} />, host.current);
  });
  return null;
}

function Receipt(p: ReceiptFacts) {
  return (
    <article aria-label="Gate receipt">
      <h1>Gate receipt</h1>
      {p.yardName && <p class="receipt-yard">{p.yardName}</p>}
      <dl>
        <dt>Trailer</dt>
        <dd>{p.trailer ?? 'none'}</dd>
        {p.truck && (
          <>
            <dt>Truck</dt>
            <dd>{p.truck}</dd>
          </>
        )}
        <dt>Spot or door</dt>
        <dd>{p.place ?? 'ask the gate'}</dd>
        <dt>Checked in</dt>
        <dd>{yardDateTime(p.at, p.timeZone)}</dd>
        {p.gate && (
          <>
            <dt>Gate</dt>
            <dd>{p.gate}</dd>
          </>
        )}
      </dl>
      <p class="receipt-code">{p.code ?? 'Walk-in'}</p>
      <p class="receipt-note">{p.code ? 'Appointment code' : 'No appointment'}</p>
    </article>
  );
}
