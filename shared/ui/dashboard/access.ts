import type { Role } from '../common/auth';

/**
 * Who sees which part of the dashboard: the one home of that rule on the client. It mirrors the
 * API's roles (API.md); the server still checks every call, this only keeps people away from
 * screens whose every action they would be refused.
 */
export type Area =
  | 'sites'
  | 'yard'
  | 'map'
  | 'gates'
  | 'tasks'
  | 'appointments'
  | 'master'
  | 'admin'
  | 'billing';

const AREAS: Record<Area, Role[]> = {
  sites: ['admin', 'dispatcher', 'billing', 'viewer'],
  yard: ['admin', 'dispatcher', 'billing', 'viewer'],
  map: ['admin', 'dispatcher', 'viewer'],
  gates: ['admin', 'dispatcher', 'viewer'],
  tasks: ['admin', 'dispatcher', 'viewer'],
  // Dock schedule, scheduling config, load types, detention and on-time figures (API.md "Appointments").
  appointments: ['admin', 'dispatcher', 'billing', 'viewer'],
  // Master data: yards, locations, gates, carriers, drivers, trucks, trailers (read for D and V).
  master: ['admin', 'dispatcher', 'viewer'],
  // Users, API keys, cameras and integrations, settings: admins only.
  admin: ['admin'],
  billing: ['admin', 'billing'],
};

/** The roles the dashboard is for (UI.md: office staff, billing, admins). */
export const DASHBOARD_ROLES: Role[] = ['admin', 'dispatcher', 'billing', 'viewer'];

export function mayUse(area: Area, role: Role | undefined): boolean {
  return role !== undefined && AREAS[area].includes(role);
}

/** Actions beyond reading, by the API's route roles. */
export const may = {
  openGate: (role: Role | undefined) => role === 'admin' || role === 'gate',
  editTasks: (role: Role | undefined) => role === 'admin' || role === 'dispatcher',
  editLocations: (role: Role | undefined) => role === 'admin' || role === 'dispatcher',
  editMasterData: (role: Role | undefined) => role === 'admin',
  /** Scheduling config, load types and bookings: admins and dispatchers (API.md "Appointments"). */
  editAppointments: (role: Role | undefined) => role === 'admin' || role === 'dispatcher',
  editBilling: (role: Role | undefined) => role === 'admin' || role === 'billing',
  /** Dead letters are every site's rows: an admin without a yard scope only (sync/routes.ts). */
  retryDeadLetters: (p: { role: Role; yardIds: string[] | null } | null) =>
    p?.role === 'admin' && p.yardIds === null,
};
