// Who may post events: the sender's Kubernetes ServiceAccount token, checked with the
// TokenReview API (the review is a function passed in: ./token-review.ts in production), for
// one audience, and only for the configured subjects. Successful reviews are cached briefly,
// keyed by a SHA-256 of the token (never the token), in a bounded map, so a stream of events
// costs one API call per token and cache period, not one per event. Failed reviews are not
// cached: a forged token must not push the real sender's entry out.
import { createHash } from 'node:crypto';

export interface Review {
  readonly authenticated: boolean;
  /** system:serviceaccount:<namespace>:<name> for a ServiceAccount token. */
  readonly username?: string;
  /** Audiences the token was accepted for (the API server's answer). */
  readonly audiences?: readonly string[];
}

/** Asks the API server about a token for an audience; rejects when it cannot be asked. */
export type ReviewToken = (token: string, audience: string) => Promise<Review>;

export type SenderDecision =
  | { readonly ok: true; readonly subject?: string }
  | { readonly ok: false; readonly status: 401 | 403; readonly error: string; readonly reason: string };

/** Decides on an Authorization header; rejects only when the review could not be made. */
export type CheckSender = (authorization: string | undefined) => Promise<SenderDecision>;

export interface SenderAuthOptions {
  readonly review: ReviewToken;
  readonly audience: string;
  readonly allowedSubjects: readonly string[];
  readonly cacheTtlMs: number;
  readonly cacheSize: number;
  readonly now?: () => number;
}

/** INGEST_AUTH=none: every sender is accepted (a local dev loop only). */
export const anySender: CheckSender = async () => ({ ok: true });

const unauthenticated = (reason: string): SenderDecision => ({
  ok: false,
  status: 401,
  error: 'unauthenticated',
  reason,
});

export function tokenReviewSender(options: SenderAuthOptions): CheckSender {
  const { review, audience, now = Date.now } = options;
  const allowed = new Set(options.allowedSubjects);
  // Insertion order is age: the first entry is the oldest, evicted when the map is full.
  const cache = new Map<string, { subject: string; until: number }>();

  const subjectOf = async (token: string): Promise<string | undefined> => {
    const key = createHash('sha256').update(token).digest('hex');
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.subject;
    cache.delete(key);
    const answer = await review(token, audience);
    // The API server checks the audience when asked for one; an old one might ignore it.
    if (!answer.authenticated || !answer.username || !(answer.audiences ?? []).includes(audience)) return undefined;
    const until = Math.min(now() + options.cacheTtlMs, expiryOf(token) ?? Infinity);
    if (until > now()) {
      while (cache.size >= options.cacheSize) cache.delete(cache.keys().next().value!);
      cache.set(key, { subject: answer.username, until });
    }
    return answer.username;
  };

  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return unauthenticated('a bearer token (a Kubernetes ServiceAccount token) is required');
    const subject = await subjectOf(token);
    if (subject === undefined)
      return unauthenticated(`the token is not a valid Kubernetes token for the audience "${audience}"`);
    if (!allowed.has(subject))
      return { ok: false, status: 403, error: 'forbidden', reason: `${subject} may not send events to ingest` };
    return { ok: true, subject };
  };
}

export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}

/** The `exp` claim of a JWT in ms, read without verifying (the review did that), to cache no
 * longer than the token lives. Undefined when the token is not a JWT with one. */
export function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
