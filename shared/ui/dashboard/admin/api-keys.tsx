import { useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { may } from '../access';
import { labelOf, STAFF_ROLE } from '../master/options';
import type { EntitySpec } from '../records/types';
import { type ApiKey, apiKeyRecords, revokeApiKey } from './data';
import { yardScopeText } from './users';

type Created = Schemas['ApiKeyCreated'];

/** The secret, once: with a copy button and a plain warning that it is not shown again. */
function SecretOnce(props: { created: Created }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.created.key);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused by the browser: select the key and copy it by hand.');
    }
  };
  return (
    <div role="status">
      <h3>The key for “{props.created.name}”</h3>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> The server keeps only a hash; if it is lost,
        revoke this key and create a new one. The client sends it in the <code>X-Api-Key</code> header.
      </p>
      <p class="secret">
        <span class="visually-hidden">API key: </span>
        <code data-testid="api-key-secret">{props.created.key}</code>
        <button type="button" onClick={copy}>
          Copy key
        </button>
        {copied && <span>{copied}</span>}
      </p>
    </div>
  );
}

/** Keys for machine clients, each acting with a role and yard scope. Owned by the cloud. */
export const apiKeys: EntitySpec<ApiKey> = {
  title: 'API keys',
  singular: 'API key',
  intro: 'Keys for machine clients (a dock scheduler, a TMS). Each acts with the role and yards given here.',
  columns: [
    { label: 'Name', value: (k) => k.name },
    { label: 'Role', value: (k) => labelOf(STAFF_ROLE, k.role) },
    { label: 'Yards', value: (k) => yardScopeText(k.yardIds) },
    { label: 'Created', value: (k) => k.createdAt.slice(0, 10) },
    { label: 'Status', value: (k) => (k.revokedAt ? `Revoked ${k.revokedAt.slice(0, 10)}` : 'Active') },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true, hint: 'who uses it, e.g. dock scheduler' },
    { name: 'role', label: 'Role', kind: 'select', options: STAFF_ROLE, initial: 'viewer', required: true },
    { name: 'yardIds', label: 'Yards the key may see', kind: 'yards' },
  ],
  api: apiKeyRecords,
  owner: 'cloud',
  may: { create: may.editMasterData, edit: may.editMasterData },
  notEditable: 'An API key is not changed: revoke it and create a new one.',
  actions: [
    {
      label: 'Revoke',
      danger: true,
      confirm: (k) =>
        `Revoke the key “${k.name}”? Clients using it are refused at once; this cannot be undone.`,
      run: ({ record }) => revokeApiKey(record.id),
      shown: (k) => k.revokedAt === null,
      may: may.editMasterData,
      done: (k) => `Revoked the key “${k.name}”.`,
    },
  ],
  label: (k) => k.name,
  empty: 'No API keys yet. Create one with “New API key” for each machine client.',
  afterCreate: (k) => ('key' in k ? <SecretOnce created={k as Created} /> : null),
};
