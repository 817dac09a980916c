// Who may post events: the sender's Kubernetes ServiceAccount token, checked with the
// TokenReview API (the review is a function passed in: ./token-review.ts in production), for
// one audience, and only for the configured subjects. Successful reviews are cached briefly,
// keyed by a SHA-256 of the token (never the token), in a bounded map, so a stream of events
// costs one API call per token and cache period, not one per event. Failed reviews are not
// cached: a forged token must not push the real sender's entry out.
//
// A flood of forged or unknown tokens must not become a flood of API calls: reviews of tokens
// not in the cache spend a token of a bucket (`reviewLimit`: a rate and a burst, enough for
// the senders and their restarts); when it is empty the request gets 429 with Retry-After,
// which the senders retry, and the API server is not asked. Requests in flight with the same
// token share one review (a sender starting with 16 requests at once costs one).
// The real sender during a flood: its review is cached, so it is served without the bucket
// until the entry expires. Then an entry of an allowed subject whose token has not expired
// (its exp claim) is re-reviewed AHEAD of the bucket: only a token whose review succeeded
// has one, so the flood cannot use that lane, and it costs one review per sender and cache
// period. What the rule does not cover: a NEW token of the sender (a restart, the kubelet's
// rotation) competes with the flood for the bucket, and waits (429, retried) until the flood
// ebbs; an event it gives up on is caught up by the periodic resync.
import { createHash } from 'node:crypto';
import { tokenBucket } from './token-bucket.ts';

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
  | {
      readonly ok: false;
      readonly status: 401 | 403 | 429;
      readonly error: string;
      readonly reason: string;
      /** With 429: when the sender may try again. */
      readonly retryAfterS?: number;
    };

/** Decides on an Authorization header; rejects only when the review could not be made. */
export type CheckSender = (authorization: string | undefined) => Promise<SenderDecision>;

export interface SenderAuthOptions {
  readonly review: ReviewToken;
  readonly audience: string;
  readonly allowedSubjects: readonly string[];
  readonly cacheTtlMs: number;
  readonly cacheSize: number;
  /** Reviews of tokens not in the cache: `ratePerS` a second, `burst` at once. */
  readonly reviewLimit: { readonly ratePerS: number; readonly burst: number };
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

/** The review could not be asked for now: the bucket is empty. */
class Limited {
  constructor(readonly retryAfterS: number) {}
}

interface Entry {
  readonly subject: string;
  /** The cache period's end. */
  readonly until: number;
  /** The token's own expiry (its exp claim), past which no review can succeed. */
  readonly expires: number;
}

export function tokenReviewSender(options: SenderAuthOptions): CheckSender {
  const { review, audience, now = Date.now } = options;
  const allowed = new Set(options.allowedSubjects);
  const bucket = tokenBucket({ ...options.reviewLimit, now });
  // Insertion order is age: the first entry is the oldest, evicted when the map is full.
  const cache = new Map<string, Entry>();
  const pending = new Map<string, Promise<Review>>();

  const reviewOnce = (key: string, token: string): Promise<Review> => {
    let answer = pending.get(key);
    if (!answer) {
      answer = review(token, audience).finally(() => pending.delete(key));
      pending.set(key, answer);
    }
    return answer;
  };

  const remember = (key: string, subject: string, token: string) => {
    const expires = expiryOf(token) ?? Infinity;
    const until = Math.min(now() + options.cacheTtlMs, expires);
    cache.delete(key);
    if (until <= now()) return;
    while (cache.size >= options.cacheSize) cache.delete(cache.keys().next().value!);
    cache.set(key, { subject, until, expires });
  };

  const subjectOf = async (token: string): Promise<string | undefined | Limited> => {
    const key = createHash('sha256').update(token).digest('hex');
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.subject;
    // A known sender's expired entry is re-reviewed ahead of the bucket (see the header).
    const known = hit !== undefined && allowed.has(hit.subject) && hit.expires > now();
    if (!known) cache.delete(key);
    if (!known && !pending.has(key) && !bucket.take()) return new Limited(Math.ceil(bucket.waitMs() / 1000) || 1);
    const answer = await reviewOnce(key, token);
    // The API server checks the audience when asked for one; an old one might ignore it.
    if (!answer.authenticated || !answer.username || !(answer.audiences ?? []).includes(audience)) {
      cache.delete(key);
      return undefined;
    }
    remember(key, answer.username, token);
    return answer.username;
  };

  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return unauthenticated('a bearer token (a Kubernetes ServiceAccount token) is required');
    const subject = await subjectOf(token);
    if (subject instanceof Limited)
      return {
        ok: false,
        status: 429,
        error: 'too-many-reviews',
        reason: 'too many unknown tokens to review at once; retry later',
        retryAfterS: subject.retryAfterS,
      };
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
