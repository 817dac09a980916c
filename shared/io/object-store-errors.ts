// The object store's errors, typed by what the caller must do: not-found (the object or bucket
// is not there), access-denied (credentials or policy: retrying will not help until a user
// fixes them), unreachable (network or a 5xx: retry later), aborted (the caller's signal), and
// failed (anything else). Their messages are built here from the operation, the key and the
// server's error code alone: never from the server's text or the SDK's error, which may echo a
// request (headers, signature, access key).

export type ObjectStoreErrorKind = 'not-found' | 'access-denied' | 'unreachable' | 'aborted' | 'failed';

/** Where an error happened: 'get backups/a/shard-0.rdb', for the message. */
export interface ErrorPlace {
  operation: string;
  bucket: string;
  key?: string;
}

export class ObjectStoreError extends Error {
  constructor(
    readonly kind: ObjectStoreErrorKind,
    readonly place: ErrorPlace,
    detail: string,
    /** The S3 error code ('NoSuchKey') or the socket's ('ECONNREFUSED'), when there is one. */
    readonly code?: string,
    readonly status?: number,
  ) {
    const where = place.key === undefined ? place.bucket : `${place.bucket}/${place.key}`;
    const tags = [code, status === undefined ? undefined : `HTTP ${status}`].filter(Boolean).join(', ');
    super(`object store: ${place.operation} ${where}: ${detail}${tags ? ` (${tags})` : ''}`);
    this.name = new.target.name;
  }
}

export class ObjectNotFoundError extends ObjectStoreError {}
export class ObjectStoreAccessDeniedError extends ObjectStoreError {}
export class ObjectStoreUnreachableError extends ObjectStoreError {}
export class ObjectStoreAbortedError extends ObjectStoreError {}

const notFoundCodes = new Set(['NoSuchKey', 'NotFound', 'NoSuchBucket', 'NoSuchUpload']);
const deniedCodes = new Set([
  'AccessDenied',
  'AllAccessDisabled',
  'ExpiredToken',
  'InvalidAccessKeyId',
  'InvalidToken',
  'SignatureDoesNotMatch',
  'Forbidden',
]);
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

interface SdkLikeError {
  name?: unknown;
  code?: unknown;
  Code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/** A code is shown only when it looks like one: a server could put anything in it. */
function safeCode(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(value) ? value : undefined;
}

/** The typed error for whatever an S3 call threw (an SDK service error, a socket error, an abort). */
export function toObjectStoreError(error: unknown, place: ErrorPlace): ObjectStoreError {
  if (error instanceof ObjectStoreError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkLikeError;
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const name = safeCode(e.name);
  const code = safeCode(e.Code) ?? safeCode(e.code) ?? (name === 'Error' ? undefined : name);

  if (name === 'AbortError' || code === 'ABORT_ERR') return new ObjectStoreAbortedError('aborted', place, 'aborted');
  if (code !== undefined && deniedCodes.has(code))
    return new ObjectStoreAccessDeniedError('access-denied', place, 'access denied', code, status);
  if (status === 403) return new ObjectStoreAccessDeniedError('access-denied', place, 'access denied', code, status);
  if (code === 'NoSuchBucket')
    return new ObjectNotFoundError('not-found', place, 'the bucket does not exist', code, status);
  if ((code !== undefined && notFoundCodes.has(code)) || status === 404)
    return new ObjectNotFoundError('not-found', place, 'not found', code, status);
  if (status !== undefined && status >= 500)
    return new ObjectStoreUnreachableError('unreachable', place, 'the server failed', code, status);
  if (status === undefined && ((code !== undefined && socketCodes.has(code)) || name === 'TimeoutError'))
    return new ObjectStoreUnreachableError('unreachable', place, 'cannot reach the server', code);
  return new ObjectStoreError('failed', place, 'failed', code, status);
}

/** The value or undefined when the object is not there (as a HEAD of a missing key is). */
export async function unlessObjectNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof ObjectNotFoundError) return undefined;
    throw error;
  }
}
