import { useState } from 'preact/hooks';
import { MovementLog } from '../movements/movement-log';
import { VisitHistory } from '../movements/visit-history';
import { timeZone, yard } from '../yard';
import '../lanes/lanes.css';
import '../movements/movements.css';

type Tab = 'movements' | 'visits';

/** Movements through the gates (with their pictures) and the history of finished visits. */
export function Movements() {
  const [tab, setTab] = useState<Tab>('movements');
  const yardId = yard.value?.id;
  if (!yardId) return null;
  const tabProps = (t: Tab) => ({
    role: 'tab' as const,
    id: `tab-${t}`,
    'aria-selected': tab === t,
    'aria-controls': `panel-${t}`,
    tabIndex: tab === t ? 0 : -1,
    onClick: () => setTab(t),
  });
  // Arrow keys move between the two tabs (the ARIA tabs pattern).
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    const t: Tab = tab === 'movements' ? 'visits' : 'movements';
    setTab(t);
    document.getElementById(`tab-${t}`)?.focus();
  };
  return (
    <section aria-labelledby="movements-heading">
      <h1 id="movements-heading">Movements</h1>
      <div class="tabs" role="tablist" aria-label="Movement views" onKeyDown={onKeyDown}>
        <button type="button" {...tabProps('movements')}>
          Gate movements
        </button>
        <button type="button" {...tabProps('visits')}>
          Visit history
        </button>
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'movements' ? (
          <MovementLog yardId={yardId} timeZone={timeZone.value} />
        ) : (
          <VisitHistory yardId={yardId} timeZone={timeZone.value} />
        )}
      </div>
    </section>
  );
}
