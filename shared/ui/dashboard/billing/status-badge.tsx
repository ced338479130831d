const LOOK = { draft: 'warn', issued: 'ok', void: 'bad' } as const;
const TEXT = { draft: 'Draft', issued: 'Issued', void: 'Void' } as const;

/** An invoice's status as a badge: a draft is not final, issued is, void is cancelled. */
export function StatusBadge(props: { status: 'draft' | 'issued' | 'void' }) {
  return <span class={`badge ${LOOK[props.status]}`}>{TEXT[props.status]}</span>;
}
