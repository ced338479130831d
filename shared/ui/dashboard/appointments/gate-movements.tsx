import { useState } from 'preact/hooks';
import { AttachmentImage } from '../../common/attachment-image';
import { yardDateTime } from '../../common/time';
import type { DetentionRow } from './report-data';

type Movement = DetentionRow['movements'][number];

const DIRECTION_WORDS: Record<string, string> = { in: 'Check-in', out: 'Check-out' };

/**
 * An appointment's gate movements with their pictures: what the office shows a carrier who claims
 * detention. Folded by default (pictures load only when opened: a week's report has hundreds).
 */
export function GateMovements(props: { code: string; movements: Movement[]; timeZone: string }) {
  const [open, setOpen] = useState(false);
  const pictures = props.movements.reduce((n, m) => n + m.attachmentIds.length, 0);
  return (
    <details class="gate-movements" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Gate movements of {props.code}: {props.movements.length}, {pictures} picture
        {pictures === 1 ? '' : 's'}
      </summary>
      {open && (
        <ul>
          {props.movements.map((m) => {
            const what = `${DIRECTION_WORDS[m.direction] ?? m.direction} ${yardDateTime(m.at, props.timeZone)}`;
            return (
              <li key={m.id}>
                <p>
                  <strong>{what}</strong>
                  {m.gateName ? ` at ${m.gateName}` : ''}
                  {m.trailerNumber ? `, trailer ${m.trailerNumber}` : ''}
                  {m.truckPlate ? `, truck ${m.truckPlate}` : ''}
                </p>
                {m.attachmentIds.length === 0 ? (
                  <p class="muted">No pictures.</p>
                ) : (
                  <div class="pictures">
                    {m.attachmentIds.map((id, i) => (
                      <AttachmentImage key={id} id={id} alt={`${what}, picture ${i + 1}`} width={240} />
                    ))}
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </details>
  );
}
