import { expect } from 'chai';
import { LOST_NODE_GRACE_MS, nextLostPodCheck, podsToForceDelete } from '../../../shared/core/reconcile/lost-pods.ts';
import type { ObservedPod } from '../../../shared/core/reconcile/observed.ts';
import type { Topology } from '../../../shared/core/cluster/topology.ts';
import { aTopology, idOf, pods, threeByOne, type NodeSpec } from '../cluster/builders.ts';
import { aPod } from './builders.ts';

const NOW = 1_000_000;
const six = pods(6);
const failed = (specs: NodeSpec[], failing: number[]) =>
  specs.map((s) => (failing.includes(s.pod) ? { ...s, fail: true } : s));
/** The replicas 3, 4, 5 are down and every master marks them FAIL. */
const replicasGone = aTopology(six, failed(threeByOne, [3, 4, 5]), { unreachable: [3, 4, 5] });
/** Master 1 is down, marked FAIL, and its replica 3 took over its slots. */
const failedOver = aTopology(
  six,
  [
    { pod: 0, slots: '0-5461' },
    { pod: 1, fail: true },
    { pod: 2, slots: '10923-16383' },
    { pod: 3, slots: '5462-10922', epoch: 7 },
    { pod: 4, role: 'replica', of: 2 },
    { pod: 5, role: 'replica', of: 0 },
  ],
  { unreachable: [1] },
);
/** The views of `viewers` do not (yet) mark node `n` failed. */
function notFailedIn(t: Topology, viewers: number[], n: number): Topology {
  return {
    ...t,
    views: t.views.map((v) =>
      viewers.some((i) => v.pod === `redis-${i}`)
        ? { ...v, entries: v.entries.map((e) => (e.id === idOf(n) ? { ...e, failing: 'none' as const } : e)) }
        : v,
    ),
  };
}

describe('lost-pods', () => {
  describe('the grace period (Redis agrees the node is gone)', () => {
    const table: [string, Partial<ObservedPod>, boolean, number | undefined][] = [
      ['a healthy pod', {}, false, undefined],
      ['a terminating pod on a healthy node', { terminating: true }, false, undefined],
      [
        'a pod on a lost node that is not terminating (not evicted yet)',
        { nodeLostSince: NOW - 60_000 },
        false,
        undefined,
      ],
      [
        'a terminating pod on a node lost just now',
        { terminating: true, nodeLostSince: NOW },
        false,
        LOST_NODE_GRACE_MS,
      ],
      [
        'a terminating pod on a node lost 5 s ago',
        { terminating: true, nodeLostSince: NOW - 5_000 },
        false,
        LOST_NODE_GRACE_MS - 5_000,
      ],
      [
        'a terminating pod on a node lost exactly the grace ago',
        { terminating: true, nodeLostSince: NOW - LOST_NODE_GRACE_MS },
        true,
        undefined,
      ],
      [
        'a terminating pod on a node lost long ago',
        { terminating: true, nodeLostSince: NOW - 10 * LOST_NODE_GRACE_MS },
        true,
        undefined,
      ],
    ];
    for (const [what, fields, deleted, next] of table) {
      it(`${deleted ? 'force-deletes' : 'keeps'} ${what}${next !== undefined ? `, and looks again in ${next} ms` : ''}`, () => {
        const all = [aPod(0), aPod(3, fields)];
        expect(podsToForceDelete(all, replicasGone, NOW)).to.deep.equal(deleted ? ['redis-3'] : []);
        expect(nextLostPodCheck(all, NOW)).to.equal(next);
      });
    }

    it('looks again when the first of several pods passes its grace', () => {
      const all = [
        aPod(3, { terminating: true, nodeLostSince: NOW - 2_000 }),
        aPod(4, { terminating: true, nodeLostSince: NOW - 15_000 }),
        aPod(5, { terminating: true, nodeLostSince: NOW - 30_000 }),
      ];
      expect(podsToForceDelete(all, replicasGone, NOW)).to.deep.equal(['redis-5']);
      expect(nextLostPodCheck(all, NOW)).to.equal(LOST_NODE_GRACE_MS - 15_000);
    });

    it('honours a grace period passed in', () => {
      const all = [aPod(3, { terminating: true, nodeLostSince: NOW - 2_000 })];
      expect(podsToForceDelete(all, replicasGone, NOW, 1_000)).to.deep.equal(['redis-3']);
      expect(nextLostPodCheck(all, NOW, 3_000)).to.equal(1_000);
    });
  });

  describe('what Redis says (pods past the grace period)', () => {
    const lost = { terminating: true, nodeLostSince: NOW - 10 * LOST_NODE_GRACE_MS };
    const table: [string, number, Topology, boolean][] = [
      [
        'a master whose Redis still answers (a kubelet cut off from the API server)',
        1,
        aTopology(six, threeByOne),
        false,
      ],
      [
        'a master whose Redis still answers though the masters mark it failed',
        1,
        aTopology(six, failed(threeByOne, [1])),
        false,
      ],
      ['an unreachable master no master marks failed', 1, aTopology(six, threeByOne, { unreachable: [1] }), false],
      [
        'an unreachable master marked FAIL whose shard has not failed over',
        1,
        aTopology(six, failed(threeByOne, [1]), { unreachable: [1] }),
        false,
      ],
      ['an unreachable master marked FAIL whose replica took its slots', 1, failedOver, true],
      [
        'the same, while one of three masters still gives it slots',
        1,
        {
          ...failedOver,
          views: failedOver.views.map((v) =>
            v.pod === 'redis-0' ? aTopology(six, failed(threeByOne, [1]), { unreachable: [1] }).views[0]! : v,
          ),
        },
        false,
      ],
      ['an unreachable replica marked FAIL by one master of three', 3, notFailedIn(replicasGone, [0, 2], 3), false],
      ['an unreachable replica marked FAIL by two masters of three', 3, notFailedIn(replicasGone, [0], 3), true],
      ['an unreachable replica marked FAIL by every master', 3, replicasGone, true],
      [
        'a pod whose node no reachable node knows',
        1,
        aTopology(
          six,
          threeByOne.filter((s) => s.pod !== 1 && s.of !== 1),
        ),
        false,
      ],
    ];
    for (const [what, ordinal, topology, deleted] of table) {
      it(`${deleted ? 'force-deletes' : 'keeps'} ${what}`, () => {
        expect(podsToForceDelete([aPod(0), aPod(ordinal, lost)], topology, NOW)).to.deep.equal(
          deleted ? [`redis-${ordinal}`] : [],
        );
      });
    }
  });
});
