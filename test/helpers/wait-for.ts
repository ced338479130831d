/**
 * Polls `cond` until it returns something truthy (which is returned) or the deadline passes, then
 * throws with `what` and the last value or error seen. For conditions that become true through real
 * I/O (a broker, another database): never a sleep standing in for an assertion.
 */
export async function waitFor<T>(
  cond: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string | (() => string) } = {},
): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  let lastError: unknown;
  for (;;) {
    try {
      last = await cond();
      lastError = undefined;
      if (last) return last as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const what = typeof options.what === 'function' ? options.what() : (options.what ?? 'condition');
      const seen =
        lastError !== undefined
          ? `last error: ${(lastError as Error).message ?? String(lastError)}`
          : `last value: ${describe(last)}`;
      throw new Error(`waitFor: ${what} did not hold within ${timeoutMs} ms (${seen})`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}
