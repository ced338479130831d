import type { DriverAvailability } from './task-data';

/** A driver as the lists name them: "Jo Miller (J101)". */
export function driverLabel(d: Pick<DriverAvailability, 'name' | 'driverCode'>): string {
  return d.driverCode ? `${d.name} (${d.driverCode})` : d.name;
}

/** Where the driver stands for this yard: on shift here and free, busy, at another yard, off shift. */
export function availabilityWords(d: DriverAvailability, yardId: string): string {
  if (d.availability !== 'offline' && d.session && d.session.yardId !== yardId)
    return 'on shift at another yard';
  const open = d.openTasks === 1 ? '1 open task' : `${d.openTasks} open tasks`;
  if (d.availability === 'available') return `on shift, available (${open})`;
  if (d.availability === 'busy') return `on shift, busy (${open})`;
  return d.session ? 'not heard from (offline)' : 'not on shift';
}

const RANK = { available: 0, busy: 1, offline: 2 } as const;

/** The driver picker's order: on shift here and free first, then busy, then the others; by name. */
export function pickerOrder(drivers: DriverAvailability[], yardId: string): DriverAvailability[] {
  const here = (d: DriverAvailability) => (d.session?.yardId === yardId ? 0 : 1);
  return [...drivers].sort(
    (a, b) =>
      here(a) - here(b) || RANK[a.availability] - RANK[b.availability] || a.name.localeCompare(b.name),
  );
}
