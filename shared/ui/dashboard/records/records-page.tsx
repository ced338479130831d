import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { useSubmit } from '../../common/use-submit';
import { ActionDialog } from './action-dialog';
import { problemText } from './http';
import { readOnlyReason } from './ownership';
import { RecordForm } from './record-form';
import { RecordTable } from './record-table';
import type { EntitySpec, ListQuery, Loaded, Page, RowAction } from './types';
import './records.css';

/**
 * One kind of record as a screen: its list (search, filters, more by cursor), create and edit in a
 * form, and its row actions with confirmation. Everything specific comes from the spec.
 */
export function RecordsPage<T extends { id: string }>(props: { spec: EntitySpec<T>; scopeKey?: string }) {
  const { spec } = props;
  const role = session.principal.value?.role;
  // A search in the address (?q=, from the header's search everywhere) is the list's search.
  const urlQ = useLocation().query.q ?? '';
  const [q, setQ] = useState(urlQ);
  const [filter, setFilter] = useState<Record<string, string>>({});
  const [page, setPage] = useState<Page<T> | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [opened, setOpened] = useState<Loaded<T> | 'new' | null>(null);
  const [acting, setActing] = useState<{ action: RowAction<T>; record: T } | null>(null);
  const [created, setCreated] = useState<T | null>(null);

  const ownerOf = (r: T | null) =>
    typeof spec.owner === 'function' ? (r ? spec.owner(r) : 'both') : spec.owner;
  const pageReadOnly =
    typeof spec.owner === 'function' ? null : readOnlyReason(spec.owner, spec.may.edit(role));
  const rowReadOnly = (r: T) => readOnlyReason(ownerOf(r), spec.may.edit(role));
  const mayCreate =
    Boolean(spec.api.create) && spec.may.create(role) && readOnlyReason(ownerOf(null), true) === null;

  const load = async (more: boolean, query: ListQuery = { filter, ...(q ? { q } : {}) }) => {
    try {
      const cursor = more ? page?.nextCursor : undefined;
      const next = await spec.api.list({ ...query, ...(cursor ? { cursor } : {}) });
      setPage(more && page ? { items: [...page.items, ...next.items], nextCursor: next.nextCursor } : next);
      setProblem(null);
    } catch (err) {
      setProblem(problemText(err, spec.singular));
    }
  };
  // "Show more" runs once at a time: a second press would ask for the same page again.
  const more = useSubmit(() => load(true));
  useEffect(() => {
    setPage(null);
    setQ(urlQ);
    load(false, { filter, ...(urlQ ? { q: urlQ } : {}) });
  }, [spec, props.scopeKey, urlQ]);

  const open = async (record: T) => {
    setNotice(null);
    try {
      setOpened(await spec.api.load(record));
    } catch (err) {
      setProblem(problemText(err, spec.singular));
    }
  };
  const saved = (record: T, isNew: boolean) => {
    setOpened(null);
    setNotice(`${isNew ? 'Created' : 'Saved'} ${spec.singular} ${spec.label(record)}.`);
    if (isNew && spec.afterCreate) setCreated(record);
    load(false);
  };
  const setFilterValue = (name: string, value: string) => {
    const next = { ...filter };
    if (value) next[name] = value;
    else delete next[name];
    setFilter(next);
    load(false, { filter: next, ...(q ? { q } : {}) });
  };

  return (
    <section class="records" aria-labelledby="records-heading">
      <h2 id="records-heading">{spec.title}</h2>
      {spec.intro && <p class="muted">{typeof spec.intro === 'function' ? spec.intro() : spec.intro}</p>}
      {pageReadOnly && <p class="read-only-note">{pageReadOnly}</p>}
      <div class="records-tools">
        {spec.search && (
          <form
            class="records-search"
            onSubmit={(e) => {
              e.preventDefault();
              load(false);
            }}
          >
            <label for="records-q">{spec.search.label}</label>
            <div>
              <input id="records-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
              <button type="submit">Search</button>
            </div>
          </form>
        )}
        {spec.filters?.map((f) => (
          <label key={f.name}>
            {f.label}
            <select
              value={filter[f.name] ?? ''}
              onChange={(e) => setFilterValue(f.name, e.currentTarget.value)}
            >
              <option value="">All</option>
              {f.options.map((o) => (
                <option value={o.value}>{o.label}</option>
              ))}
            </select>
          </label>
        ))}
        {mayCreate && (
          <button type="button" class="button primary" onClick={() => setOpened('new')}>
            New {spec.singular}
          </button>
        )}
      </div>
      {notice && <FormMessage kind="ok">{notice}</FormMessage>}
      {created && spec.afterCreate && (
        <div class="panel created">
          {spec.afterCreate(created)}
          <button type="button" onClick={() => setCreated(null)}>
            Done: I have stored it
          </button>
        </div>
      )}
      {problem && <FormMessage kind="error">{problem}</FormMessage>}
      {page && (
        <RecordTable
          spec={spec}
          items={page.items}
          role={role}
          readOnly={rowReadOnly}
          viewOnly={(r) => !spec.api.update || rowReadOnly(r) !== null}
          onOpen={open}
          onAction={(action, record) => {
            setNotice(null);
            setActing({ action, record });
          }}
        />
      )}
      {page?.nextCursor && (
        <button type="button" onClick={() => more.run()} disabled={more.busy}>
          Show more {spec.title.toLowerCase()}
        </button>
      )}
      {!page && !problem && <p class="muted">Loading {spec.title.toLowerCase()}…</p>}
      {opened && (
        <RecordForm
          spec={spec}
          opened={opened === 'new' ? null : opened}
          readOnly={
            opened === 'new'
              ? null
              : (rowReadOnly(opened.record) ??
                (spec.api.update ? null : (spec.notEditable ?? 'This record cannot be changed.')))
          }
          onSaved={(r) => saved(r, opened === 'new')}
          onClose={() => setOpened(null)}
        />
      )}
      {acting && (
        <ActionDialog
          spec={spec}
          action={acting.action}
          record={acting.record}
          onDone={(message) => {
            setActing(null);
            setNotice(message);
            load(false);
          }}
          onClose={() => setActing(null)}
        />
      )}
    </section>
  );
}
