import { carriers } from '../master/carriers';
import { drivers } from '../master/drivers';
import { gates } from '../master/gates';
import { locations } from '../master/locations';
import { vehicles } from '../master/vehicles';
import { yardsSpec } from '../master/yards';
import { RecordsPage } from '../records/records-page';
import { NoSuchPage, SubNav, useSubPage } from '../records/sub-nav';
import type { EntitySpec } from '../records/types';
import { yard } from '../scope';

const BASE = '/dashboard/master';

interface MasterPage {
  slug: string;
  label: string;
  // biome-ignore lint/suspicious/noExplicitAny: each page lists its own kind of record
  spec: EntitySpec<any>;
  /** Records of the yard chosen in the picker: the list follows the pick. */
  perYard?: boolean;
}

const PAGES: MasterPage[] = [
  { slug: 'carriers', label: 'Carriers', spec: carriers },
  { slug: 'drivers', label: 'Drivers', spec: drivers },
  { slug: 'trucks', label: 'Trucks', spec: vehicles.truck },
  { slug: 'trailers', label: 'Trailers', spec: vehicles.trailer },
  { slug: 'yards', label: 'Yards', spec: yardsSpec },
  { slug: 'locations', label: 'Locations', spec: locations, perYard: true },
  { slug: 'gates', label: 'Gates', spec: gates, perYard: true },
];

/** Master data: carriers, drivers, trucks, trailers, yards, locations and gates (docs/web-apps.md, the dashboard's Master data). */
export function MasterData() {
  const page = useSubPage(BASE, PAGES);
  const scopeKey = page?.perYard ? yard.value?.id : undefined;
  return (
    <section aria-labelledby="master-heading">
      <h1 id="master-heading">Master data</h1>
      <SubNav label="Master data" base={BASE} pages={PAGES} current={page} />
      {page ? (
        <RecordsPage key={page.slug} spec={page.spec} {...(scopeKey ? { scopeKey } : {})} />
      ) : (
        <NoSuchPage base={BASE} first={PAGES[0]!} />
      )}
    </section>
  );
}
