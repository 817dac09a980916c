import { expect } from 'chai';
import { childNames, claimOrdinal, ordinalOf } from '../../../shared/core/resources/names.ts';

describe('names', () => {
  describe('ordinalOf', () => {
    const table: [string, string, number | undefined][] = [
      ['redis', 'redis-0', 0],
      ['redis', 'redis-12', 12],
      ['redis', 'redis-', undefined],
      ['redis', 'redis-x', undefined],
      ['redis', 'redis-1a', undefined],
      ['redis', 'redis-1-2', undefined],
      ['redis', 'redisx-1', undefined],
      ['redis', 'other-1', undefined],
      // a cluster whose name extends another's: its pods are not the shorter one's
      ['redis', 'redis-cache-0', undefined],
      ['redis-cache', 'redis-cache-3', 3],
    ];
    for (const [sts, pod, want] of table) {
      it(`returns ${want} for pod ${pod} of StatefulSet ${sts}`, () => {
        expect(ordinalOf(sts, pod)).to.equal(want);
      });
    }
  });

  describe('claimOrdinal', () => {
    const table: [string, number | undefined][] = [
      ['data-redis-0', 0],
      // kept from a larger former size
      ['data-redis-17', 17],
      ['extra-redis-2', 2],
      ['data-redis', undefined],
      ['redis-0', undefined],
      ['other-redis-0', undefined],
      // another cluster whose name extends this one's
      ['data-redis-cache-0', undefined],
      ['data-redis-0-backup', undefined],
    ];
    for (const [claim, want] of table) {
      it(`returns ${want} for claim ${claim} of StatefulSet redis with templates data and extra`, () => {
        expect(claimOrdinal(['data', 'extra'], 'redis', claim)).to.equal(want);
      });
    }
  });

  describe('childNames', () => {
    it('names every child from the cluster name, the headless Service apart from the client one', () => {
      const names = childNames('shop');
      expect(names).to.deep.equal({
        statefulSet: 'shop',
        configMap: 'shop-config',
        generatedSecret: 'shop-auth',
        headlessService: 'shop-nodes',
        clientService: 'shop',
        podDisruptionBudget: 'shop',
        networkPolicy: 'shop',
      });
    });
  });
});
