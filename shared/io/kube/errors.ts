// API errors, recognised in one place: client-node's ApiException (code), a failed watch
// (statusCode or a WatchError's code), or no status at all (the connection failed).
export function statusOf(error: unknown): number | undefined {
  const e = error as { code?: unknown; statusCode?: unknown } | null;
  if (typeof e?.statusCode === 'number') return e.statusCode;
  return typeof e?.code === 'number' ? e.code : undefined;
}

export const isNotFound = (error: unknown): boolean => statusOf(error) === 404;
export const isConflict = (error: unknown): boolean => statusOf(error) === 409;
export const isExpired = (error: unknown): boolean => statusOf(error) === 410;
/** No HTTP status at all: refused, reset, timed out (the API server is down or restarting). */
export const isConnectionError = (error: unknown): boolean => statusOf(error) === undefined;

/** The object a read returns, or undefined when there is none (404). */
export async function unlessNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** A short description of an API error, without request bodies (they may carry secrets). */
export function describeApiError(error: unknown): string {
  const code = statusOf(error);
  const body = (error as { body?: unknown })?.body;
  let message: string | undefined;
  try {
    message =
      typeof body === 'string'
        ? (JSON.parse(body) as { message?: string }).message
        : (body as { message?: string } | undefined)?.message;
  } catch {
    message = undefined;
  }
  if (code !== undefined) return `HTTP ${code}${message ? `: ${message}` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
