/**
 * A library loaded on its first use instead of at start (docs/performance.md "Edge memory"): the
 * PDF, QR, calendar, SMTP and Web Push libraries cost the edge's resident memory from the moment
 * they are imported, and most edges render a pass or send a mail rarely, or never. The load is
 * shared by concurrent first callers; a failed load is tried again by the next caller.
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
