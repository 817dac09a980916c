import { expect } from 'chai';
import type { PodPlacement } from '../../../shared/core/cluster/desired.ts';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import { aDesired, aTopology, pods, type NodeSpec } from './builders.ts';
import { expectShape, simulate } from './simulate.ts';

const NOW = 1_000_000;

const quarter = ['0-4095', '4096-8191', '8192-12287', '12288-16383'];

describe('planReplicas', () => {
  it('re-pairs replicas when a roll left one beside its master on 3 nodes (4x1), then stays Ready', () => {
    const all = pods(8, 3);
    // masters on redis-3 (node-0), 4 (node-1), 5 (node-2), 6 (node-0); redis-0 (node-0) serves redis-6 beside it
    const specs: NodeSpec[] = [
      { pod: 3, slots: quarter[0] },
      { pod: 4, slots: quarter[1] },
      { pod: 5, slots: quarter[2] },
      { pod: 6, slots: quarter[3] },
      { pod: 0, role: 'replica', of: 6 },
      { pod: 1, role: 'replica', of: 3 },
      { pod: 2, role: 'replica', of: 4 },
      { pod: 7, role: 'replica', of: 5 },
    ];
    const desired = aDesired(4, 1, all);
    const run = simulate(desired, specs);
    expect(run.steps.every((s) => s.kind === 'replicate')).to.equal(true);
    expect(run.steps.length).to.be.within(1, 3);
    expectShape(desired, run.nodes, { zones: true });
    const last = run.plans.at(-1);
    expect(last?.converged, last?.progress.message).to.equal(true);
    expect(last?.problems).to.deep.equal([]);
  });

  const uneven: [string, PodPlacement[], NodeSpec[]][] = [
    [
      '3 nodes in zones a, a, b',
      pods(6, 3).map((p) => ({ ...p, zone: p.nodeName === 'node-2' ? 'b' : 'a' })),
      [
        { pod: 0, slots: '0-5461' },
        { pod: 1, slots: '5462-10922' },
        { pod: 2, slots: '10923-16383' },
        { pod: 3, role: 'replica', of: 1 },
        { pod: 4, role: 'replica', of: 2 },
        { pod: 5, role: 'replica', of: 0 },
      ],
    ],
    [
      '2 zones with 5 pods in one',
      pods(6, 6).map((p, i) => ({ ...p, zone: i === 5 ? 'b' : 'a' })),
      [
        { pod: 0, slots: '0-5461' },
        { pod: 1, slots: '5462-10922' },
        { pod: 2, slots: '10923-16383' },
        { pod: 3, role: 'replica', of: 0 },
        { pod: 4, role: 'replica', of: 1 },
        { pod: 5, role: 'replica', of: 2 },
      ],
    ],
  ];
  for (const [name, all, specs] of uneven) {
    it(`plans no step and converges, reporting the relaxed zone rule, when pods sit in ${name}`, () => {
      const plan = planCluster(aDesired(3, 1, all), aTopology(all, specs), NOW);
      expect(plan.steps).to.deep.equal([]);
      expect(plan.converged, plan.progress.message).to.equal(true);
      expect(plan.problems.map((p) => p.code)).to.include('PlacementRelaxed');
    });

    it(`attaches fresh replicas once and then plans nothing when pods sit in ${name}`, () => {
      const fresh = specs.map((s) => (s.role === 'replica' ? { pod: s.pod } : s));
      const desired = aDesired(3, 1, all);
      const run = simulate(desired, fresh);
      expect(run.steps.map((s) => s.kind)).to.deep.equal(['replicate', 'replicate', 'replicate']);
      expectShape(desired, run.nodes);
      expect(run.plans.at(-1)?.converged).to.equal(true);
    });
  }
});

describe('planReplicas over every role layout', () => {
  it("reaches a placement with every replica off its master's node, and stays, for every 4x1 layout on 3 nodes", function () {
    this.timeout(60_000);
    const all = pods(8, 3);
    const desired = aDesired(4, 1, all);
    let layouts = 0;
    for (let mask = 0; mask < 256; mask++) {
      const masters = [0, 1, 2, 3, 4, 5, 6, 7].filter((i) => mask & (1 << i));
      if (masters.length !== 4) continue;
      const replicas = [0, 1, 2, 3, 4, 5, 6, 7].filter((i) => !masters.includes(i));
      for (const shift of [mask % 4]) {
        const specs: NodeSpec[] = [
          ...masters.map((pod, i) => ({ pod, slots: quarter[i] })),
          ...replicas.map((pod, i) => ({ pod, role: 'replica' as const, of: masters[(i + shift) % 4] })),
        ];
        const run = simulate(desired, specs);
        expectShape(desired, run.nodes, { zones: true });
        expect(run.plans.at(-1)?.converged, `${JSON.stringify(specs)}: ${run.plans.at(-1)?.progress.message}`).to.equal(
          true,
        );
        layouts++;
      }
    }
    expect(layouts).to.equal(70);
  });
});
