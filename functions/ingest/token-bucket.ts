// A token bucket: at most `burst` tokens, refilled at `ratePerS` a second; each take spends
// one. It bounds what a flood can cost downstream (ingest's token reviews, ./sender-auth.ts)
// while letting a short burst through at once. Time is the caller's clock.

export interface TokenBucket {
  /** Spends a token if there is one. */
  take(): boolean;
  /** Ms until the next take can succeed (0 when one can now). */
  waitMs(): number;
}

export interface TokenBucketOptions {
  readonly ratePerS: number;
  readonly burst: number;
  readonly now: () => number;
}

export function tokenBucket({ ratePerS, burst, now }: TokenBucketOptions): TokenBucket {
  let tokens = burst;
  let at = now();
  const refill = () => {
    const t = now();
    // A clock stepped back refills nothing (and takes nothing).
    tokens = Math.min(burst, tokens + (Math.max(0, t - at) * ratePerS) / 1000);
    at = t;
  };
  return {
    take() {
      refill();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    waitMs() {
      refill();
      return tokens >= 1 ? 0 : ((1 - tokens) * 1000) / ratePerS;
    },
  };
}
