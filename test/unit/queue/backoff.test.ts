import { expect } from 'chai';
import { backoffDelay, validateBackoff } from '../../../shared/core/queue/backoff.ts';

describe('backoff', () => {
  const policy = { baseMs: 100, maxMs: 1_000, jitter: 0.5 };

  it('doubles with each failure and stops at the cap when there is no jitter', () => {
    const delays = [1, 2, 3, 4, 5, 6, 60, 5000].map((n) => backoffDelay(n, { ...policy, jitter: 0 }, () => 0.7));
    expect(delays).to.deep.equal([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
  });

  it('only shortens the delay with jitter, by at most the jitter fraction', () => {
    expect(backoffDelay(3, policy, () => 0)).to.equal(400);
    expect(backoffDelay(3, policy, () => 0.5)).to.equal(300);
    expect(backoffDelay(3, policy, () => 0.999999)).to.equal(200);
    expect(backoffDelay(40, policy, () => 0)).to.equal(1000);
  });

  it('spreads keys failing together when the random source differs', () => {
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const delays = new Set(Array.from({ length: 20 }, () => backoffDelay(5, policy, random)));
    expect(delays.size).to.be.greaterThan(10);
  });

  it('rejects a failure count below one and an inconsistent policy', () => {
    expect(() => backoffDelay(0, policy, Math.random)).to.throw(RangeError);
    expect(() => validateBackoff({ baseMs: 10, maxMs: 5, jitter: 0 })).to.throw(RangeError);
    expect(() => validateBackoff({ baseMs: 10, maxMs: 50, jitter: 2 })).to.throw(RangeError);
    expect(validateBackoff(policy)).to.deep.equal(policy);
  });
});
