type Page<T> = { items: T[]; nextCursor: string | null };

/** Every page of a list (a yard holds a few hundred units at most; 500 is the API's page limit). */
export async function allPages<T>(load: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await load(cursor);
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}
