import { session } from '../../common/auth';
import { may } from '../access';
import { ConfigPage } from '../appointments/config-page';
import { DetentionPage } from '../appointments/detention-page';
import { doorCapacity } from '../appointments/doors';
import { FiguresPage } from '../appointments/figures-page';
import { LoadTypesPage } from '../appointments/load-types-page';
import { DockSchedule } from '../appointments/schedule';
import { MANAGED_IN_CLOUD } from '../records/ownership';
import { RecordsPage } from '../records/records-page';
import { NoSuchPage, SubNav, useSubPage } from '../records/sub-nav';
import { ownership, timeZone, yard } from '../scope';
import '../appointments/appointments.css';

const BASE = '/dashboard/appointments';

const PAGES = [
  { slug: 'schedule', label: 'Dock schedule' },
  { slug: 'config', label: 'Scheduling config' },
  { slug: 'load-types', label: 'Load types' },
  { slug: 'doors', label: 'Door capacity' },
  { slug: 'detention', label: 'Detention report' },
  { slug: 'figures', label: 'On-time figures' },
];

/**
 * Dock appointments of the chosen yard (docs/web-apps.md, the dashboard's Appointments): the dock
 * schedule, the scheduling config, load types, door capacity, the detention report and the on-time
 * figures per carrier and door. Each is an address under /dashboard/appointments/.
 */
export function Appointments() {
  const page = useSubPage(BASE, PAGES);
  const y = yard.value;
  const role = session.principal.value?.role;
  if (!y) return <p>No yard is in your scope. Ask an admin to give you access to a yard.</p>;
  // Config and load types are the cloud's at a linked site (a booking is made where availability is known).
  const readOnly = ownership.value.masterDataReadOnly
    ? MANAGED_IN_CLOUD
    : may.editAppointments(role)
      ? null
      : 'Your role may read this; admins and dispatchers change it.';
  const tz = timeZone.value;
  let body: preact.ComponentChildren;
  switch (page?.slug) {
    case 'schedule':
      body = <DockSchedule key={y.id} yardId={y.id} />;
      break;
    case 'config':
      body = <ConfigPage key={y.id} yardId={y.id} yardName={y.name} timeZone={tz} readOnly={readOnly} />;
      break;
    case 'load-types':
      body = <LoadTypesPage key={y.id} yardId={y.id} yardName={y.name} readOnly={readOnly} />;
      break;
    case 'doors':
      body = <RecordsPage key={y.id} spec={doorCapacity} scopeKey={y.id} />;
      break;
    case 'detention':
      body = <DetentionPage key={y.id} yardId={y.id} timeZone={tz} />;
      break;
    case 'figures':
      body = <FiguresPage key={y.id} yardId={y.id} timeZone={tz} />;
      break;
    default:
      body = <NoSuchPage base={BASE} first={PAGES[0]!} />;
  }
  return (
    <section class="appointments" aria-labelledby="appointments-heading">
      <h1 id="appointments-heading">Appointments: {y.name}</h1>
      <SubNav label="Appointments" base={BASE} pages={PAGES} current={page} />
      {body}
    </section>
  );
}
