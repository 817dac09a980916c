import { expect } from 'chai';
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { planRebalance } from '../../../shared/core/cluster/plan-rebalance.ts';
import { aContext, aDesired, pods, type NodeSpec } from './builders.ts';

const threeMasters: NodeSpec[] = [
  { pod: 0, slots: '0-5461' },
  { pod: 1, slots: '5462-10922' },
  { pod: 2, slots: '10923-16383' },
];
const leaving = pods(3).map((p) => (p.name === 'redis-2' ? { ...p, removing: true } : p));

// Each move as 'source>target:slots'.
describe('planRebalance', () => {
  const cases: [string, DesiredCluster, NodeSpec[], number | undefined, { moves: string[]; slotsToMove: number }][] = [
    [
      'plans nothing when three masters hold even shares',
      aDesired(3, 0, pods(3)),
      threeMasters,
      undefined,
      {
        moves: [],
        slotsToMove: 0,
      },
    ],
    [
      'fills a fourth, empty master from every other, largest first',
      aDesired(4, 0, pods(4)),
      [...threeMasters, { pod: 3 }],
      undefined,
      { moves: ['redis-0>redis-3:1366', 'redis-1>redis-3:1365', 'redis-2>redis-3:1365'], slotsToMove: 4096 },
    ],
    [
      'moves no more than maxSlots in one step, and counts what is left',
      aDesired(4, 0, pods(4)),
      [...threeMasters, { pod: 3 }],
      2000,
      { moves: ['redis-0>redis-3:1366', 'redis-1>redis-3:634'], slotsToMove: 4096 },
    ],
    [
      'drains a master on a leaving pod into the two that stay, largest deficit first',
      aDesired(2, 0, leaving),
      threeMasters,
      undefined,
      { moves: ['redis-2>redis-1:2731', 'redis-2>redis-0:2730'], slotsToMove: 5461 },
    ],
  ];
  for (const [name, desired, specs, maxSlots, expected] of cases) {
    it(`${name}`, () => {
      const plan = planRebalance(aContext(desired, specs), maxSlots);
      const moves =
        plan.step?.kind === 'migrate'
          ? plan.step.moves.map((m) => `${m.source.pod}>${m.target.pod}:${m.slots.length}`)
          : [];
      expect({ moves, slotsToMove: plan.slotsToMove }).to.deep.equal(expected);
    });
  }
});
