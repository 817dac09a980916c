import { expect } from 'chai';
import type { Topology } from '../../../shared/core/cluster/topology.ts';
import { guardsToLift } from '../../../shared/core/cluster/write-guard.ts';
import { aTopology, pods, threeByOne, type NodeSpec } from './builders.ts';

const all = pods(6);
// After redis-0 failed and its replica redis-5 took its slots: redis-0 is redis-5's replica.
const failedOver: NodeSpec[] = [
  { pod: 0, role: 'replica', of: 5 },
  { pod: 1, slots: '5462-10922' },
  { pod: 2, slots: '10923-16383' },
  { pod: 3, role: 'replica', of: 1 },
  { pod: 4, role: 'replica', of: 2 },
  { pod: 5, slots: '0-5461', epoch: 7 },
];

/** `topology` with `pod`'s own view taken from `own` (what that node believes), guarded as given. */
function withView(topology: Topology, pod: number, own: NodeSpec[], guarded: number[], unreachable: number[] = []) {
  const mine = aTopology(all, own).views.find((v) => v.pod === `redis-${pod}`)!;
  const views = topology.views
    .map((v) => (v.pod === `redis-${pod}` ? mine : v))
    .filter((v) => !unreachable.some((u) => v.pod === `redis-${u}`))
    .map((v) => ({ ...v, minReplicasToWrite: guarded.some((g) => v.pod === `redis-${g}`) ? 1 : 0 }));
  return { ...topology, views };
}

describe('guardsToLift: the restart guard goes once the cluster agrees on what the node is', () => {
  const cases: [string, Topology, number, string[]][] = [
    [
      'a replaced master back with its old nodes.conf: it still claims the slots its replica took',
      withView(aTopology(all, failedOver), 0, threeByOne, [0]),
      0,
      [],
    ],
    [
      'the same node once gossip turned it into a replica',
      withView(aTopology(all, failedOver), 0, failedOver, [0]),
      0,
      ['redis-0: it is a replica'],
    ],
    [
      'a master back before anyone replaced it: every node gives it its slots',
      withView(aTopology(all, threeByOne), 0, threeByOne, [0]),
      0,
      ['redis-0: every reachable node gives it its slots'],
    ],
    [
      'the same, but only it answers of the three masters (the others may have elected its replica)',
      withView(aTopology(all, threeByOne, { unreachable: [1, 2, 5] }), 0, threeByOne, [0]),
      0,
      [],
    ],
    [
      'the same, with one other master away: two of three still answer',
      withView(aTopology(all, threeByOne, { unreachable: [2] }), 0, threeByOne, [0]),
      0,
      ['redis-0: every reachable node gives it its slots'],
    ],
    [
      'a node that already believes another master holds its slots (a promoted replica not yet heard of by the rest)',
      withView(withView(aTopology(all, threeByOne), 5, failedOver, []), 0, threeByOne, [0]),
      0,
      [],
    ],
    [
      'a master with no slot serves nothing',
      withView(
        aTopology(all, [...threeByOne.slice(0, 5), { pod: 5 }]),
        5,
        [...threeByOne.slice(0, 5), { pod: 5 }],
        [5],
      ),
      0,
      ['redis-5: it is a master with no slot'],
    ],
    ['a node without the guard is left alone', withView(aTopology(all, failedOver), 0, threeByOne, []), 0, []],
    [
      "the spec's own min-replicas-to-write of 2 is not lowered",
      withView(aTopology(all, failedOver), 0, failedOver, [0]),
      2,
      [],
    ],
  ];
  for (const [name, topology, wanted, expected] of cases)
    it(name, () => {
      expect(guardsToLift(topology, wanted).map((l) => `${l.pod}: ${l.why}`)).to.deep.equal(expected);
    });
});
