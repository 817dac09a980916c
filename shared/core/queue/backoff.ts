// Per-key capped exponential backoff with jitter, as a pure function of the number of
// consecutive failures and a random source (client-go's ItemExponentialFailureRateLimiter,
// plus the cap BullMQ's built-in exponential strategy lacks).

export interface BackoffPolicy {
  /** Delay after the first failure. */
  readonly baseMs: number;
  /** No delay ever exceeds this. */
  readonly maxMs: number;
  /** Fraction of the delay drawn at random, 0..1: delay * (1 - jitter * r), r in [0, 1). */
  readonly jitter: number;
}

export const defaultBackoff: BackoffPolicy = Object.freeze({ baseMs: 1_000, maxMs: 5 * 60_000, jitter: 0.2 });

/**
 * The wait before the next run after `failures` consecutive failures (1 = the first).
 * Grows as baseMs * 2^(failures-1) up to maxMs; the jitter only ever shortens it, so the
 * cap holds and keys failing together spread out instead of retrying in lockstep.
 */
export function backoffDelay(failures: number, policy: BackoffPolicy, random: () => number): number {
  if (!Number.isInteger(failures) || failures < 1)
    throw new RangeError(`failures must be an integer >= 1, got ${failures}`);
  // 2^exponent overflows to Infinity long after it passed any sane cap; min() keeps it finite.
  const exponential = policy.baseMs * 2 ** Math.min(failures - 1, 60);
  const capped = Math.min(exponential, policy.maxMs);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.max(0, Math.round(capped * (1 - policy.jitter * r)));
}

export function validateBackoff(policy: BackoffPolicy): BackoffPolicy {
  const { baseMs, maxMs, jitter } = policy;
  if (!(baseMs > 0) || !(maxMs >= baseMs) || !(jitter >= 0 && jitter <= 1)) {
    throw new RangeError(
      `invalid backoff: need 0 < baseMs <= maxMs and 0 <= jitter <= 1 (got ${JSON.stringify(policy)})`,
    );
  }
  return Object.freeze({ baseMs, maxMs, jitter });
}
