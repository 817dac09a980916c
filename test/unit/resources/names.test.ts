import { expect } from 'chai';
import { childNames, ordinalOf } from '../../../shared/core/resources/names.ts';

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

  describe('childNames', () => {
    it('names every child from the cluster name, the headless Service apart from the client one', () => {
      const names = childNames('shop');
      expect(names).to.deep.equal({
        statefulSet: 'shop', configMap: 'shop-config', generatedSecret: 'shop-auth',
        headlessService: 'shop-nodes', clientService: 'shop', podDisruptionBudget: 'shop',
      });
    });
  });
});
