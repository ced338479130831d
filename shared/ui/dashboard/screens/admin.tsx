import { lazy } from 'preact-iso';
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

// Email and webhooks load on first use: the admin chunk stays small for the other pages.
const EmailScreen = lazy(() => import('../admin/email-settings').then((m) => m.EmailScreen));
const WebhooksScreen = lazy(() => import('../admin/webhooks').then((m) => m.WebhooksScreen));

interface AdminPage {
  slug: string;
  label: string;
  // biome-ignore lint/suspicious/noExplicitAny: each page lists its own kind of record
  spec?: EntitySpec<any>;
  /** Records of the yard chosen in the picker: the list follows the pick. */
  perYard?: boolean;
  /** A page of its own (not a list of records). */
  screen?: preact.ComponentType;
}

const PAGES: AdminPage[] = [
  { slug: 'users', label: 'Users', spec: users },
  { slug: 'api-keys', label: 'API keys', spec: apiKeys },
  { slug: 'cameras', label: 'Cameras', spec: cameras, perYard: true },
  { slug: 'integrations', label: 'Integrations', spec: integrations },
  { slug: 'email', label: 'Email', screen: EmailScreen },
  { slug: 'webhooks', label: 'Webhooks', screen: WebhooksScreen },
  { slug: 'settings', label: 'Settings', screen: Settings },
];

/**
 * The admin area: users, API keys, cameras, integrations, email, webhooks, settings (docs/web-apps.md, the dashboard's Admin). The router offers it
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
      ) : page.screen ? (
        <page.screen key={page.slug} />
      ) : null}
    </section>
  );
}
