import type { Role } from '../../common/auth';
import type { EntitySpec, RowAction } from './types';

/** The list as a real table: the spec's columns, then what may be done to each row. */
export function RecordTable<T extends { id: string }>(props: {
  spec: EntitySpec<T>;
  items: T[];
  role: Role | undefined;
  readOnly: (record: T) => string | null;
  /** Opened to look at, not to edit (read-only, or a kind never edited). */
  viewOnly: (record: T) => boolean;
  onOpen: (record: T) => void;
  onAction: (action: RowAction<T>, record: T) => void;
}) {
  const { spec, items } = props;
  if (items.length === 0) return <p class="empty">{spec.empty}</p>;
  return (
    <table class="records-table">
      <caption>
        {spec.title} ({items.length} shown)
      </caption>
      <thead>
        <tr>
          {spec.columns.map((c) => (
            <th scope="col" key={c.label}>
              {c.label}
            </th>
          ))}
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((r) => {
          const readOnly = props.readOnly(r);
          const view = props.viewOnly(r) ? 'View' : 'Edit';
          const name = spec.label(r);
          return (
            <tr key={r.id}>
              {spec.columns.map((c, i) =>
                i === 0 ? (
                  <th scope="row" key={c.label}>
                    {c.value(r)}
                  </th>
                ) : (
                  <td key={c.label}>{c.value(r)}</td>
                ),
              )}
              <td class="row-actions">
                <button type="button" onClick={() => props.onOpen(r)} aria-label={`${view} ${name}`}>
                  {view}
                </button>
                {!readOnly &&
                  spec.actions
                    ?.filter((a) => a.may(props.role) && (a.shown?.(r) ?? true))
                    .map((a) => (
                      <button
                        type="button"
                        key={a.label}
                        class={a.danger ? 'danger' : undefined}
                        aria-label={`${a.label} ${name}`}
                        onClick={() => props.onAction(a, r)}
                      >
                        {a.label}
                      </button>
                    ))}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
