import { expect } from 'chai';
import {
  awaitChange,
  done,
  isTerminal,
  noted,
  ReconcileTimeoutError,
  requeueAfter,
  resultLabel,
  sooner,
  TerminalError,
  TransientError,
} from '../../../shared/core/outcome.ts';
import { fromKey, toKey } from '../../../shared/core/resource-key.ts';

describe('outcome', () => {
  it('labels outcomes the way controller-runtime does', () => {
    expect([done(), awaitChange(), requeueAfter(5), 'error' as const].map(resultLabel)).to.deep.equal([
      'success',
      'success',
      'requeue_after',
      'error',
    ]);
  });

  it('refuses a negative or infinite requeue delay', () => {
    expect(() => requeueAfter(-1)).to.throw(RangeError);
    expect(() => requeueAfter(Infinity)).to.throw(RangeError);
    expect(requeueAfter(10.4)).to.deep.equal({ kind: 'requeueAfter', ms: 10 });
  });

  it("keeps, of two outcomes, the one that looks again sooner, with the first one's note", () => {
    const ready = noted(done(), { summary: 'ready' });
    expect(sooner(ready, requeueAfter(200))).to.deep.equal({
      kind: 'requeueAfter',
      ms: 200,
      note: { summary: 'ready' },
    });
    expect(sooner(requeueAfter(100), requeueAfter(200))).to.deep.equal(requeueAfter(100));
    expect(sooner(requeueAfter(2_000), requeueAfter(200))).to.deep.equal(requeueAfter(200));
    expect(sooner(awaitChange(), done())).to.deep.equal(awaitChange());
  });

  it('tells a terminal error from a transient one, a timeout being transient', () => {
    expect(isTerminal(new TerminalError('no'))).to.equal(true);
    expect(isTerminal(new TransientError('later'))).to.equal(false);
    expect(isTerminal(new ReconcileTimeoutError(5))).to.equal(false);
    expect(new ReconcileTimeoutError(5)).to.be.instanceOf(TransientError);
  });
});

describe('resource-key', () => {
  it('round-trips namespace/name and refuses what is not one', () => {
    expect(toKey({ namespace: 'prod', name: 'cache-1' })).to.equal('prod/cache-1');
    expect(fromKey('prod/cache-1')).to.deep.equal({ namespace: 'prod', name: 'cache-1' });
    for (const bad of ['prod', 'a/b/c', 'Prod/x', 'p/-x', '/x', 'p/'])
      expect(() => fromKey(bad), bad).to.throw(RangeError);
  });
});
