import { expect } from 'chai';
import {
  awaitChange,
  done,
  isTerminal,
  ReconcileTimeoutError,
  requeueAfter,
  resultLabel,
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
