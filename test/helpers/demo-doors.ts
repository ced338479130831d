import { expect } from 'vitest';

type ApiCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/**
 * The demo books its doors through the day and has today's earlier trucks docked at them
 * (edge/demo-appointments.ts), so a test that books a fixed door at "now" would meet 409 slot-taken
 * at some hours of the day. This frees the given doors from six hours back to a day ahead as the
 * office would: open bookings are cancelled, and a docked one (which a cancellation cannot end:
 * docs/domain.md "Appointments") is marked completed. Both stop holding the door's capacity.
 */
export async function freeDemoDoors(apiCall: ApiCall, yardId: string, doorIds: string[]): Promise<void> {
  const from = new Date(Date.now() - 6 * 3_600_000).toISOString();
  const to = new Date(Date.now() + 24 * 3_600_000).toISOString();
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ yardId, from, to, status: 'scheduled,arrived,docked', limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const list = await apiCall('GET', `/api/appointment?${query}`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    for (const a of list.body.items as { id: string; doorId: string | null; status: string }[]) {
      if (!a.doorId || !doorIds.includes(a.doorId)) continue;
      const res =
        a.status === 'docked'
          ? await apiCall('POST', `/api/appointment/${a.id}/status`, {
              to: 'completed',
              reason: 'door freed for a test',
            })
          : await apiCall('POST', `/api/appointment/${a.id}/cancel`, { reason: 'door freed for a test' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    cursor = list.body.nextCursor;
  } while (cursor);
}
