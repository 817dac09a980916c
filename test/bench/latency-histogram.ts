// Latencies in a fixed-size histogram (HdrHistogram's idea, simplified): buckets grow by 1%,
// from 1 µs to over an hour, so millions of samples cost a few KiB and percentiles stay within
// 1%. The exact maximum is kept apart.
const GROWTH = 1.01;
const BUCKETS = 2400; // 1.01^2400 µs ≈ 6 hours

export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  private total = 0;
  private max = 0;

  record(ms: number): void {
    const us = Math.max(1, ms * 1000);
    const bucket = Math.min(BUCKETS - 1, Math.floor(Math.log(us) / Math.log(GROWTH)));
    this.counts[bucket]! += 1;
    this.total++;
    if (ms > this.max) this.max = ms;
  }

  /** Upper edge of the bucket holding the p-th percentile (nearest rank), in ms. */
  percentile(p: number): number {
    if (this.total === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]!;
      if (seen >= rank) return Math.min(this.max, GROWTH ** (b + 1) / 1000);
    }
    return this.max;
  }

  summary(): LatencySummary {
    return { count: this.total, p50Ms: this.percentile(50), p99Ms: this.percentile(99), maxMs: this.max };
  }
}
