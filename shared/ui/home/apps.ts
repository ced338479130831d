import type { Role } from '../common/auth';

export type ServerRole = 'edge' | 'cloud';

/** The web apps and who each is for (UI.md). */
export const APPS = [
  {
    href: '/gate/',
    name: 'Gate house',
    text: 'Check trucks and trailers in and out, open gates, yard inventory and move requests.',
    roles: ['admin', 'gate', 'dispatcher', 'viewer'] as Role[],
    // Gates, movements and their pictures live at the site: the gate house runs at the edge.
    servers: ['edge'] as ServerRole[],
  },
  {
    href: '/driver/',
    name: 'Driver',
    text: 'Your yard tasks on the phone: the current move, the queue, start and complete.',
    roles: ['driver'] as Role[],
    // Drivers work over the yard Wi-Fi against their site's edge.
    servers: ['edge'] as ServerRole[],
  },
  {
    href: '/dashboard/',
    name: 'Dashboard',
    text: 'Every site at a glance, yard figures and map, remote gates, tasks, master data and billing.',
    roles: ['admin', 'dispatcher', 'billing', 'viewer'] as Role[],
    // The office works at the cloud; a standalone site shows its own dashboard.
    servers: ['cloud', 'edge'] as ServerRole[],
  },
  {
    href: '/carrier/',
    name: 'Carrier portal',
    text: 'Book dock appointments, change or cancel them, the gate pass and your invoices.',
    roles: ['carrier'] as Role[],
    // Carrier users live at the cloud (and a standalone site, which is a whole product).
    servers: ['cloud', 'edge'] as ServerRole[],
  },
];

/** The apps for a role on this server: the home goes straight to the one, or offers the few. */
export function appsFor(role: Role, server: ServerRole) {
  return APPS.filter((a) => a.roles.includes(role) && a.servers.includes(server));
}
