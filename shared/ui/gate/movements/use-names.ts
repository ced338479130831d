import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, call } from '../../common/api/client';
import { session } from '../../common/auth';
import { NameBook, type NameKind } from './names';

let users: Promise<Map<string, string>> | undefined;

/** How each kind of id is read by name through the API. */
async function fetchName(kind: NameKind, id: string): Promise<string> {
  const path = { params: { path: { id } } };
  switch (kind) {
    case 'carrier': {
      const c = await call(api.GET('/api/carrier/{id}', path));
      return c.scac ? `${c.name} (${c.scac})` : c.name;
    }
    case 'driver': {
      const d = await call(api.GET('/api/driver/{id}', path));
      return `${d.firstName} ${d.lastName}`;
    }
    case 'trailer':
      return (await call(api.GET('/api/trailer/{id}', path))).number;
    case 'truck': {
      const t = await call(api.GET('/api/truck/{id}', path));
      return t.plate ?? t.unitNumber ?? `truck ${id.slice(-6)}`;
    }
    case 'user': {
      // Only admins may read users; the others see their own name and "another user".
      if (id === session.principal.value?.id) return session.principal.value.name;
      if (session.principal.value?.role !== 'admin') return 'another user';
      users ??= call(api.GET('/api/user', { params: { query: { limit: 500 } } })).then(
        (page) => new Map(page.items.map((u) => [u.id, u.displayName ?? u.username])),
      );
      return (await users).get(id) ?? 'an API client or a removed user';
    }
  }
}

/**
 * The screen's name book and a counter that re-renders the screen when names came in:
 * `const { book, resolve } = useNames(); await resolve(rows.flatMap(...))`.
 */
export function useNames() {
  const book = useMemo(() => new NameBook(fetchName), [session.principal.value?.id]);
  const [, setVersion] = useState(0);
  return {
    book,
    resolve: async (wanted: Array<[NameKind, string | null | undefined]>) => {
      await book.resolve(wanted);
      setVersion((v) => v + 1);
    },
  };
}

/** The yard's spots and doors by id (one list call; locations are few). */
export function useLocations(yardId: string | undefined): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (!yardId) return;
    call(
      api.GET('/api/yard/{id}/location', { params: { path: { id: yardId }, query: { limit: 500 } } }),
    ).then(
      (page) => setNames(new Map(page.items.map((l) => [l.id, l.name]))),
      () => undefined,
    );
  }, [yardId]);
  return names;
}
