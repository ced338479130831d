import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, call, type Schemas } from './api/client';

export type Actuation = Schemas['GateActuation'];

/**
 * A gate's opening log (GET /api/hardware/gate/{gateId}/actuations), newest first, ten at a time:
 * loaded when the gate or `changed` changes, `load(next)` appends the next page, `load()` reloads.
 * The gate house's lane card and the dashboard's gate panel show it.
 */
export function useGateAudit(gateId: string, changed: unknown) {
  const [audit, setAudit] = useState<{ items: Actuation[]; next: string | null } | null>(null);
  const [auditError, setAuditError] = useState<string | null>(null);
  const load = useCallback(
    async (cursor?: string) => {
      try {
        const page = await call(
          api.GET('/api/hardware/gate/{gateId}/actuations', {
            params: { path: { gateId }, query: { limit: 10, ...(cursor ? { cursor } : {}) } },
          }),
        );
        setAudit((prev) => ({
          items: cursor && prev ? [...prev.items, ...page.items] : page.items,
          next: page.nextCursor,
        }));
        setAuditError(null);
      } catch (err) {
        setAuditError((err as Error).message);
      }
    },
    [gateId],
  );
  useEffect(() => void load(), [load, changed]);
  return { audit, auditError, loadAudit: load };
}
