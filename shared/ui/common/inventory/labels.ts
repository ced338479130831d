import type { Schemas } from '../api/client';

type Task = Schemas['YardTask'];

export const LOAD_LABEL: Record<Schemas['Trailer']['loadStatus'], string> = {
  loaded: 'Loaded',
  empty: 'Empty',
  unknown: 'Unknown',
};

export const PRIORITIES = [
  { value: 0, label: 'Low' },
  { value: 1, label: 'Normal' },
  { value: 2, label: 'High' },
  { value: 3, label: 'Urgent' },
] as const;

const TYPE_LABEL: Record<Task['type'], string> = {
  move: 'Move',
  pull_to_door: 'Pull to door',
  return_to_spot: 'Return to spot',
  shunt: 'Shunt',
  inspect: 'Inspect',
  other: 'Task',
};

const STATUS_LABEL: Record<Task['status'], string> = {
  QUEUED: 'waiting for a driver',
  ASSIGNED: 'assigned',
  IN_PROGRESS: 'in progress',
  COMPLETED: 'done',
  CANCELLED: 'cancelled',
};

/** "Move to S09, waiting for a driver". */
export function taskLabel(task: Task, placeName: (id: string | null) => string): string {
  const to = task.toLocationId ? ` to ${placeName(task.toLocationId)}` : '';
  return `${TYPE_LABEL[task.type]}${to}, ${STATUS_LABEL[task.status]}`;
}
