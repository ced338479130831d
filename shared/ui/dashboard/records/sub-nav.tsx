import { useLocation } from 'preact-iso';

export interface SubPage {
  slug: string;
  label: string;
}

/** The sub-pages of an area (/dashboard/master/carriers …), and which one the address names. */
export function useSubPage<P extends SubPage>(base: string, pages: P[]): P | null {
  const { path } = useLocation();
  const rest = path.slice(base.length).replace(/^\/+|\/+$/g, '');
  if (rest === '') return pages[0] ?? null;
  return pages.find((p) => p.slug === rest) ?? null;
}

export function SubNav(props: { label: string; base: string; pages: SubPage[]; current: SubPage | null }) {
  return (
    <nav class="sub-nav" aria-label={props.label}>
      <ul>
        {props.pages.map((p) => (
          <li key={p.slug}>
            <a href={`${props.base}/${p.slug}`} aria-current={p === props.current ? 'page' : undefined}>
              {p.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** An address under the area that names no page. */
export function NoSuchPage(props: { base: string; first: SubPage }) {
  return (
    <p>
      There is no such page here. Go to <a href={`${props.base}/${props.first.slug}`}>{props.first.label}</a>.
    </p>
  );
}
