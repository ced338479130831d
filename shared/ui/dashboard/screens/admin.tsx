import { apiKeys } from '../admin/api-keys';
import { cameras } from '../admin/cameras';
import { integrations } from '../admin/integrations';
import { Settings } from '../admin/settings';
import { users } from '../admin/users';
import { RecordsPage } from '../records/records-page';
import { NoSuchPage, SubNav, useSubPage } from '../records/sub-nav';
import type { EntitySpec } from '../records/types';
import { yard } from '../scope';

const BASE = '/dashboard/admin';

interface AdminPage {
  slug: string;
  label: string;
  // biome-ignore lint/suspicious/noExplicitAny: each page lists its own kind of record
  spec?: EntitySpec<any>;
  /** Records of the yard chosen in the picker: the list follows the pick. */
  perYard?: boolean;
}

const PAGES: AdminPage[] = [
  { slug: 'users', label: 'Users', spec: users },
  { slug: 'api-keys', label: 'API keys', spec: apiKeys },
  { slug: 'cameras', label: 'Cameras', spec: cameras, perYard: true },
  { slug: 'integrations', label: 'Integrations', spec: integrations },
  { slug: 'settings', label: 'Settings' },
];

/**
 * The admin area: users, API keys, cameras, integrations, settings (docs/web-apps.md, the dashboard's Admin). The router offers it
 * to admins only; a call refused anyway (403) is shown in words by each list.
 */
export function Admin() {
  const page = useSubPage(BASE, PAGES);
  const scopeKey = page?.perYard ? yard.value?.id : undefined;
  return (
    <section aria-labelledby="admin-heading">
      <h1 id="admin-heading">Admin</h1>
      <SubNav label="Admin" base={BASE} pages={PAGES} current={page} />
      {!page ? (
        <NoSuchPage base={BASE} first={PAGES[0]!} />
      ) : page.spec ? (
        <RecordsPage key={page.slug} spec={page.spec} {...(scopeKey ? { scopeKey } : {})} />
      ) : (
        <Settings />
      )}
    </section>
  );
}
