import { expect } from 'chai';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import { aDesired, aTopology, idOf, pods, type NodeSpec } from './builders.ts';

const NOW = 1_000_000;
const all = pods(6);
const third = ['0-5461', '5462-10922', '10923-16383'];
// Slot 100 was half moved from redis-0 (S, replica redis-5) to redis-1 (T, replica redis-3).
const S: NodeSpec = { pod: 0, slots: third[0] };
const T: NodeSpec = { pod: 1, slots: third[1] };
const C: NodeSpec = { pod: 2, slots: third[2] };
const sReplica: NodeSpec = { pod: 5, role: 'replica', of: 0 };
const tReplica: NodeSpec = { pod: 3, role: 'replica', of: 1 };
const cReplica: NodeSpec = { pod: 4, role: 'replica', of: 2 };
const sFailedOver: NodeSpec[] = [
  { pod: 5, slots: third[0], epoch: 7 },
  { pod: 0, role: 'replica', of: 5 },
];
const tFailedOver: NodeSpec[] = [
  { pod: 3, slots: third[1], epoch: 8 },
  { pod: 1, role: 'replica', of: 3 },
];

const cases: {
  name: string;
  specs: NodeSpec[];
  keys: Record<number, Record<number, number>>;
  move?: [string, string];
  close?: string;
}[] = [
  {
    name: 'the source failed over: the target still imports from the old source id, now a replica',
    specs: [...sFailedOver, { ...T, slots: `${third[1]} [100-<-${idOf(0)}]` }, C, tReplica, cReplica],
    keys: { 1: { 100: 10 }, 5: { 100: 10 } },
    move: ['redis-5', 'redis-1'],
  },
  {
    name: 'the target failed over: the source still migrates to the old target id, now a replica',
    specs: [{ ...S, slots: `${third[0]} [100->-${idOf(1)}]` }, ...tFailedOver, C, sReplica, cReplica],
    keys: { 0: { 100: 10 }, 3: { 100: 10 } },
    move: ['redis-0', 'redis-3'],
  },
  {
    name: 'both failed over: no marker is left, the promoted target holds keys of a slot it does not own',
    specs: [...sFailedOver, ...tFailedOver, C, cReplica],
    keys: { 3: { 100: 10 } },
    move: ['redis-5', 'redis-3'],
  },
  {
    name: 'an import whose source id is no longer the owner holds no key',
    specs: [...sFailedOver, { ...T, slots: `${third[1]} [100-<-${idOf(0)}]` }, C, tReplica, cReplica],
    keys: { 1: { 100: 0 } },
    close: 'redis-1',
  },
];

describe('planResume (migrations interrupted by failovers)', () => {
  for (const c of cases) {
    it(`${c.move ? `moves slot 100 ${c.move.join(' -> ')}` : `closes slot 100 on ${c.close}`} when ${c.name}`, () => {
      const plan = planCluster(
        aDesired(3, 1, all),
        aTopology(all, c.specs, { keysInSlot: (v) => c.keys[v] ?? {} }),
        NOW,
      );
      expect(plan.problems.map((p) => p.message)).to.deep.equal([]);
      const [step, ...rest] = plan.steps;
      expect(rest).to.deep.equal([]);
      if (c.move) {
        if (step?.kind !== 'migrate') throw new Error(`expected migrate, got ${step?.kind}`);
        expect(step.moves.map((m) => [m.source.pod, m.target.pod, m.slots])).to.deep.equal([[...c.move, [100]]]);
      } else {
        expect(step?.kind === 'closeSlots' && [step.node.pod, step.slots]).to.deep.equal([c.close, [100]]);
      }
    });
  }

  it('does not take a slot for a master whose own view still claims it (a stale master back with old data)', () => {
    const specs = [
      { pod: 5, slots: third[0], epoch: 7 },
      { pod: 0, slots: third[0], epoch: 1 },
      T,
      C,
      tReplica,
      cReplica,
    ];
    const topology = aTopology(all, specs, { keysInSlot: (v): Record<number, number> => (v === 0 ? { 100: 10 } : {}) });
    const plan = planCluster(aDesired(3, 1, all), topology, NOW);
    expect(plan.steps.filter((s) => s.kind === 'migrate')).to.deep.equal([]);
  });
});
