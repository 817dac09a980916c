// Polling until a condition holds, for tests against live systems: no fixed sleeps, and a
// timeout error that says what was awaited and what the last attempt saw.
export interface WaitOptions {
  /** What is awaited, for the error: 'pod redis-0 Ready'. */
  what: string;
  /** Default 60s. */
  timeout?: number;
  /** Default 200ms. */
  interval?: number;
}

/** Calls fn until it returns a value that is not undefined, null or false; errors count as not yet. */
export async function waitFor<T>(fn: () => T | Promise<T>, options: WaitOptions): Promise<NonNullable<T>> {
  const timeout = options.timeout ?? 60_000;
  const deadline = Date.now() + timeout;
  let last: string;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined && value !== null && value !== false) return value as NonNullable<T>;
      last = `returned ${String(value)}`;
    } catch (error) {
      last = `threw ${(error as Error).message}`;
    }
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${timeout / 1000}s waiting for ${options.what} (last attempt ${last})`);
    await new Promise((r) => setTimeout(r, Math.min(options.interval ?? 200, Math.max(1, deadline - Date.now()))));
  }
}
