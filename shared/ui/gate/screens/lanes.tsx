import { useCallback, useEffect, useState } from 'preact/hooks';
import { canWorkGate, session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { onLive } from '../../common/live';
import { type HardwareStatus, loadHardwareStatus } from '../lanes/data';
import { LaneCard } from '../lanes/lane-card';
import { gates, loadGates, timeZone, yard } from '../yard';
import '../lanes/lanes.css';

type Status = HardwareStatus;

/**
 * The lane board: every gate of the yard with its relay state, its cameras' latest pictures and
 * an Open button. A movement at a gate (live event) takes new pictures and refreshes its card.
 */
export function Lanes() {
  const [status, setStatus] = useState<Status | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [changed, setChanged] = useState<Record<string, number>>({});
  const yardId = yard.value?.id;

  const loadStatus = useCallback(async () => {
    try {
      setStatus(await loadHardwareStatus());
      setProblem(null);
    } catch (err) {
      setProblem((err as Error).message);
    }
  }, []);

  useEffect(() => {
    void loadGates().catch(() => undefined);
    void loadStatus();
    const bump = (gateId: string) => setChanged((c) => ({ ...c, [gateId]: (c[gateId] ?? 0) + 1 }));
    return onLive(
      ['movement.created'],
      (e) => {
        const m = (e.data as { data?: { gateId?: string | null; yardId?: string } }).data;
        if (!m?.gateId || m.yardId !== yardId) return;
        bump(m.gateId);
        void loadStatus();
      },
      () => {
        void loadStatus();
        for (const g of gates.value) bump(g.id);
      },
    );
  }, [yardId, loadStatus]);

  // A gate caught mid-pulse: read its state again once the pulse is over (one timer, no polling).
  useEffect(() => {
    const opening = status?.gates.filter((g) => g.busy || g.state === 'opening') ?? [];
    if (opening.length === 0) return;
    const pulse = Math.max(...gates.value.map((g) => g.relay?.pulseMs ?? 0), 500);
    const t = setTimeout(() => void loadStatus(), pulse + 300);
    return () => clearTimeout(t);
  }, [status, loadStatus]);

  const lanes = gates.value.filter((g) => g.yardId === yardId);
  const mayOpen = canWorkGate(session.principal.value?.role);
  return (
    <section class="lanes-screen" aria-labelledby="lanes-heading">
      <h1 id="lanes-heading">Lanes</h1>
      {problem && (
        <FormMessage kind="error">
          The relay states could not be loaded: {problem} The buttons still work; reload the page to try
          again.
        </FormMessage>
      )}
      {lanes.length === 0 ? (
        <p class="muted">This yard has no gates yet. An admin adds them under the yard's settings.</p>
      ) : (
        <div class="lane-grid">
          {lanes.map((g) => (
            <LaneCard
              key={g.id}
              gate={g}
              status={status?.gates.find((s) => s.gateId === g.id)}
              driver={status?.drivers.find((d) => d.gateId === g.id)}
              timeZone={timeZone.value}
              mayOpen={mayOpen}
              changed={changed[g.id] ?? 0}
              onActuated={loadStatus}
            />
          ))}
        </div>
      )}
    </section>
  );
}
