import { expect } from 'chai';
import { tokenBucket } from '../../../functions/ingest/token-bucket.ts';

/** A bucket on a clock the test moves; `takes(n)` says which of n takes succeed. */
function aBucket(ratePerS: number, burst: number) {
  const clock = { now: 5_000 };
  const bucket = tokenBucket({ ratePerS, burst, now: () => clock.now });
  const takes = (n: number) => Array.from({ length: n }, () => bucket.take());
  return { bucket, clock, takes };
}

describe('ingest/token-bucket', () => {
  it('gives the burst at once, then nothing until it refills', () => {
    const { bucket, takes } = aBucket(2, 3);
    expect(takes(4)).to.deep.equal([true, true, true, false]);
    expect(bucket.waitMs()).to.equal(500);
  });

  it('refills at its rate, never past the burst', () => {
    const { clock, takes } = aBucket(2, 3);
    takes(3);
    clock.now += 1_000;
    expect(takes(3)).to.deep.equal([true, true, false]);
    clock.now += 60_000;
    expect(takes(4)).to.deep.equal([true, true, true, false]);
  });

  it('refills nothing when the clock steps back', () => {
    const { clock, takes } = aBucket(1, 1);
    takes(1);
    clock.now -= 10_000;
    expect(takes(1)).to.deep.equal([false]);
    clock.now += 1_000;
    expect(takes(1)).to.deep.equal([true]);
  });
});
