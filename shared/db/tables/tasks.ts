/** Yard tasks and their event history. */
import type { Generated } from 'kysely';
import type { TaskStatus, TaskType } from '../../enums.js';
import type { Shared, Synced, Timestamps } from './columns.js';

export interface YardTaskTable extends Synced, Timestamps, Shared {
  id: string;
  yardId: string;
  type: TaskType;
  trailerId: string | null;
  fromLocationId: string | null;
  toLocationId: string | null;
  priority: Generated<number>;
  status: Generated<TaskStatus>;
  driverId: string | null;
  notes: string | null;
  dueAt: number | null;
  createdBy: string | null;
  assignedAt: number | null;
  startedAt: number | null;
  completedAt: number | null;
  cancelledAt: number | null;
  cancelReason: string | null;
  billedCarrierId: string | null;
}

export interface TaskEventTable extends Synced {
  id: string;
  taskId: string;
  yardId: string;
  at: number;
  actorId: string | null;
  actorKind: 'user' | 'driver' | 'api-key' | 'system' | null;
  fromStatus: TaskStatus | null;
  toStatus: TaskStatus;
  driverId: string | null;
  reason: string | null;
  lat: number | null;
  lon: number | null;
  /** When the driver tapped it (bounded; docs/domain.md "Working a task"); `at` is when it arrived. */
  tappedAt: number | null;
  createdAt: number;
}
