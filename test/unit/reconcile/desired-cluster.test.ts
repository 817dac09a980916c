import { expect } from 'chai';
import { claimsToRecord, toDesiredCluster } from '../../../shared/core/reconcile/desired-cluster.ts';
import type { ObservedPod } from '../../../shared/core/reconcile/observed.ts';
import { aClaim, aPod, aRedisCluster, somePods } from './builders.ts';

const names = (pods: readonly { name: string }[]) => pods.map((p) => p.name);

describe('desired-cluster', () => {
  describe('toDesiredCluster', () => {
    it("hands the engine the spec's shape and every usable pod with its address, node and zone", () => {
      const desired = toDesiredCluster(aRedisCluster().withMasters(3).withReplicas(1).spec(), somePods(6));
      expect(desired.masters).to.equal(3);
      expect(desired.replicasPerMaster).to.equal(1);
      expect(desired.pods).to.have.length(6);
      expect(desired.pods[4]).to.deep.equal({
        name: 'redis-4',
        address: { ip: '127.9.0.5', port: 6379 },
        nodeName: 'node-1',
        zone: 'zone-1',
      });
    });

    const removing: [string, number, number, number, string[]][] = [
      ['3x1 with 6 pods', 3, 1, 6, []],
      [
        '3x1 with 12 pods (scale-in from 6x1)',
        3,
        1,
        12,
        ['redis-6', 'redis-7', 'redis-8', 'redis-9', 'redis-10', 'redis-11'],
      ],
      ['3x0 with 6 pods (replicas removed)', 3, 0, 6, ['redis-3', 'redis-4', 'redis-5']],
      ['6x1 with 6 pods (scale-out, new pods not there yet)', 6, 1, 6, []],
    ];
    for (const [what, masters, replicas, n, want] of removing) {
      it(`marks as removing the ordinals >= masters*(1+replicas): ${what}`, () => {
        const desired = toDesiredCluster(
          aRedisCluster().withMasters(masters).withReplicas(replicas).spec(),
          somePods(n),
        );
        expect(names(desired.pods.filter((p) => p.removing))).to.deep.equal(want);
        expect(desired.pods.filter((p) => !p.removing).every((p) => p.removing === undefined)).to.equal(true);
      });
    }

    const unusable: [string, Partial<ObservedPod>][] = [
      ['terminating', { terminating: true }],
      ['without an IP', { ip: undefined }],
      ['not scheduled', { nodeName: undefined }],
      ['Pending', { phase: 'Pending' }],
      ['Failed', { phase: 'Failed' }],
      ['of unknown phase', { phase: undefined }],
    ];
    for (const [what, fields] of unusable) {
      it(`leaves out a pod that is ${what}`, () => {
        const pods = somePods(6, (i) => (i === 2 ? fields : {}));
        expect(names(toDesiredCluster(aRedisCluster().spec(), pods).pods)).to.not.include('redis-2');
        expect(toDesiredCluster(aRedisCluster().spec(), pods).pods).to.have.length(5);
      });
    }

    it('keeps a Running pod that is not Ready yet (its Redis may be loading data)', () => {
      const pods = somePods(6, (i) => (i === 1 ? { ready: false } : {}));
      expect(names(toDesiredCluster(aRedisCluster().spec(), pods).pods)).to.include('redis-1');
    });

    it('leaves the zone out when the node has none', () => {
      const desired = toDesiredCluster(aRedisCluster().spec(), [aPod(0, { zone: undefined })]);
      expect(desired.pods[0]).to.not.have.property('zone');
    });

    it('keeps the node ids recorded on claims of ordinals the spec still wants, also of pods that are away', () => {
      const claims = [
        aClaim(0, 'id0'),
        aClaim(1, 'id1'),
        aClaim(5, 'id5'),
        aClaim(6, 'id6'),
        aClaim(7),
        aClaim(11, 'id11'),
      ];
      const pods = somePods(6).filter((p) => p.ordinal !== 1); // redis-1 is away (rescheduling)
      const desired = toDesiredCluster(aRedisCluster().withMasters(3).withReplicas(1).spec(), pods, claims);
      expect([...(desired.keepIds ?? [])].sort()).to.deep.equal(['id0', 'id1', 'id5']);
    });

    it('keeps no id when there are no claims', () => {
      expect([...(toDesiredCluster(aRedisCluster().spec(), somePods(6)).keepIds ?? [])]).to.deep.equal([]);
    });
  });

  describe('claimsToRecord', () => {
    const table: [string, string | undefined, string | undefined, boolean][] = [
      ['a claim has no id yet and its pod has one', undefined, 'id-new', true],
      ["the pod's Redis has a new id (its nodes.conf was lost)", 'id-old', 'id-new', true],
      ["the recorded id is the pod's", 'id-same', 'id-same', false],
      ['the pod was not observed', 'id-old', undefined, false],
    ];
    for (const [what, recorded, observed, records] of table) {
      it(`${records ? 'records' : 'records nothing'} when ${what}`, () => {
        const idOfPod = new Map(observed ? [['redis-0', observed]] : []);
        const want = records ? [{ claim: 'data-redis-0', nodeId: observed }] : [];
        expect(claimsToRecord([aClaim(0, recorded)], idOfPod)).to.deep.equal(want);
      });
    }

    it('records each claim by its own pod', () => {
      const idOfPod = new Map([
        ['redis-0', 'a'],
        ['redis-1', 'b'],
        ['redis-2', 'c'],
      ]);
      expect(claimsToRecord([aClaim(0, 'a'), aClaim(1), aClaim(2, 'x')], idOfPod)).to.deep.equal([
        { claim: 'data-redis-1', nodeId: 'b' },
        { claim: 'data-redis-2', nodeId: 'c' },
      ]);
    });
  });
});
