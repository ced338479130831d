import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { labelOf } from '../master/options';
import { fromList, ifMatch } from '../records/http';
import { withCarrierNames } from '../records/lookups';
import type { EntitySpec } from '../records/types';
import { yards } from '../scope';
import { carrierColumn, carrierField, USER_ROLE } from './users-carrier';

type User = Schemas['User'];

/** "Every yard", or the names of the yards a principal is limited to. */
export function yardScopeText(yardIds: string[] | null): string {
  if (yardIds === null) return 'Every yard';
  if (yardIds.length === 0) return 'No yard';
  return yardIds.map((id) => yards.value.find((y) => y.id === id)?.code ?? 'unknown yard').join(', ');
}

const PASSWORD_HINT = 'at least 10 characters';

const patch = (user: User, etag: string | undefined, body: Schemas['UserPatch']) =>
  call(api.PATCH('/api/user/{id}', { params: { path: { id: user.id } }, body, headers: ifMatch(etag) }));

/** Staff accounts and carrier users: each with a role and optionally a yard scope. Owned by the cloud. */
export const users: EntitySpec<User> = {
  title: 'Users',
  singular: 'user',
  intro:
    'People who sign in to the gate house and the dashboard, and carriers’ dispatchers who sign in to the carrier portal. The role decides what they may do; a yard scope limits which yards they see.',
  columns: [
    { label: 'Username', value: (u) => u.username },
    { label: 'Name', value: (u) => u.displayName ?? '—' },
    { label: 'Role', value: (u) => labelOf(USER_ROLE, u.role) },
    carrierColumn,
    { label: 'Yards', value: (u) => yardScopeText(u.yardIds) },
    { label: 'Status', value: (u) => (u.disabled ? 'Disabled' : 'Active') },
  ],
  fields: [
    {
      name: 'username',
      label: 'Username',
      required: true,
      createOnly: true,
      hint: 'letters, digits and . _ @ -',
    },
    { name: 'displayName', label: 'Display name', nullable: true },
    {
      name: 'role',
      label: 'Role',
      kind: 'select',
      options: USER_ROLE,
      // The server keeps staff users staff and carrier users carrier users (400 role-kind-change).
      editOptions: (loaded) =>
        USER_ROLE.filter((o) => (o.value === 'carrier') === (loaded.role === 'carrier')),
      initial: 'viewer',
      required: true,
      hint: 'a staff user stays staff, a carrier user a carrier user',
    },
    carrierField,
    { name: 'yardIds', label: 'Yards this user sees', kind: 'yards' },
    {
      name: 'password',
      label: 'Password',
      kind: 'password',
      required: true,
      createOnly: true,
      hint: PASSWORD_HINT,
    },
  ],
  filters: [{ name: 'role', label: 'Role', options: USER_ROLE }],
  api: {
    list: withCarrierNames(({ cursor, filter }) =>
      call(
        api.GET('/api/user', {
          params: { query: { cursor, role: filter.role as User['role'] | undefined } },
        }),
      ),
    ),
    // No GET of one user: the list's row is the version edited.
    load: async (u) => fromList(u),
    create: (body) => call(api.POST('/api/user', { body: body as Schemas['UserCreate'] })),
    update: (u, body, etag) => patch(u, etag, body as Schemas['UserPatch']),
  },
  owner: 'cloud',
  may: { create: may.editMasterData, edit: may.editMasterData },
  actions: [
    {
      label: 'Reset password',
      confirm: (u) => `New password for ${u.username}`,
      fields: [
        { name: 'password', label: 'New password', kind: 'password', required: true, hint: PASSWORD_HINT },
      ],
      run: ({ record, etag }, body) => patch(record, etag, { password: String(body.password ?? '') }),
      shown: (u) => !u.disabled,
      may: may.editMasterData,
      done: (u) =>
        `Set a new password for ${u.username}; they are signed out everywhere and sign in with it.`,
    },
    {
      label: 'Disable',
      danger: true,
      confirm: (u) =>
        `Disable ${u.username}? They are signed out everywhere and cannot sign in; the account stays for the audit trail.`,
      run: ({ record }) => call(api.DELETE('/api/user/{id}', { params: { path: { id: record.id } } })),
      shown: (u) => !u.disabled,
      may: may.editMasterData,
      done: (u) => `Disabled ${u.username}.`,
    },
    {
      label: 'Enable',
      confirm: (u) => `Enable ${u.username} again? They can sign in with their password.`,
      run: ({ record, etag }) => patch(record, etag, { disabled: false }),
      shown: (u) => u.disabled,
      may: may.editMasterData,
      done: (u) => `Enabled ${u.username}.`,
    },
  ],
  label: (u) => u.username,
  empty: 'No users match. Create one with “New user”, or clear the filter.',
};
