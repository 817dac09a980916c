import { expect } from 'chai';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import { planFailures } from '../../../shared/core/cluster/plan-failures.ts';
import { aContext, aDesired, aTopology, pods, threeByOne, type NodeSpec } from './builders.ts';

const NOW = 1_000_000;
const all = pods(6);
const failing = (pod: number, extra: Partial<NodeSpec>) =>
  threeByOne.map((s) => (s.pod === pod ? { ...s, fail: true, ...extra } : s));

// 3x1: masters redis-0..2; redis-3 replicates redis-1, redis-4 redis-2, redis-5 redis-0.
describe('planFailures', () => {
  const cases: [
    string,
    NodeSpec[],
    number[],
    { steps: { kind: string; mode: string; replica: string }[]; problem: RegExp },
  ][] = [
    [
      'the operator sits with one master on the minority side of a partition (masters 1, 2 only PFAIL to it)',
      threeByOne.map((s) =>
        s.pod === 1 || s.pod === 2 ? { ...s, fail: true, pfail: true, failedBy: [0, 3, 4, 5] } : s,
      ),
      [1, 2],
      { steps: [], problem: /sees only 1 of 3 masters/ },
    ],
    [
      'the operator cannot reach a master that no node marks failed',
      threeByOne,
      [2],
      { steps: [], problem: /only 0 of 3 masters mark it failed/ },
    ],
    [
      'a master is PFAIL to everyone but not FAIL yet',
      failing(2, { pfail: true }),
      [2],
      { steps: [], problem: /only 0 of 3 masters mark it failed/ },
    ],
    [
      'only one master of three marks it FAIL',
      failing(2, { failedBy: [0] }),
      [2],
      { steps: [], problem: /only 1 of 3 masters mark it failed/ },
    ],
    [
      'a majority of masters marks it FAIL and Redis did not fail over after the grace period',
      failing(2, { failedBy: [0, 1] }),
      [2],
      {
        steps: [{ kind: 'failover', mode: 'force', replica: 'redis-4' }],
        problem: /Redis did not fail over; promoting redis-4/,
      },
    ],
  ];
  for (const [name, specs, unreachable, expected] of cases) {
    it(`plans ${expected.steps.length === 0 ? 'no failover' : 'FAILOVER FORCE'} when ${name}`, () => {
      const plan = planCluster(aDesired(3, 1, all), aTopology(all, specs, { unreachable }), NOW, {
        autoFailoverGraceMs: 10_000,
      });
      expect(plan.steps).to.have.length(expected.steps.length);
      expected.steps.forEach((s, i) => {
        const step = plan.steps[i];
        expect(
          step?.kind === 'failover' && { kind: step.kind, mode: step.mode, replica: step.replica.pod },
        ).to.deep.equal(s);
      });
      expect(
        plan.problems
          .filter((p) => p.code === 'ShardDown')
          .map((p) => p.message)
          .join('; '),
      ).to.match(expected.problem);
      expect(plan.steps.some((s) => s.kind === 'failover' && (s.mode as string) === 'takeover')).to.equal(false);
    });
  }

  it('waits for the grace period when a majority marks the master FAIL', () => {
    const plan = planCluster(aDesired(3, 1, all), aTopology(all, failing(2, {}), { unreachable: [2] }), NOW, {
      autoFailoverGraceMs: 120_000,
    });
    expect(plan.steps).to.deep.equal([]);
    expect(plan.problems.map((p) => p.message).join()).to.match(/waiting for Redis to fail over/);
  });
});

// The phase alone: what it returns (steps, or 'wait') and the problems it reports.
describe('planFailures (the phase alone)', () => {
  const threeByZero: NodeSpec[] = threeByOne.filter((s) => s.role !== 'replica');
  const cases: [string, number, NodeSpec[], number[], string[] | 'wait', string[]][] = [
    ['no master is down', 1, threeByOne, [], [], []],
    [
      'a master with no replica is down',
      0,
      threeByZero.map((s) => (s.pod === 2 ? { ...s, fail: true } : s)),
      [2],
      'wait',
      ['ShardLost'],
    ],
    [
      'every master marks a master FAIL past the default grace period',
      1,
      failing(2, {}),
      [2],
      ['failover'],
      ['ShardDown'],
    ],
  ];
  for (const [name, replicas, specs, unreachable, steps, codes] of cases) {
    it(`returns ${steps === 'wait' ? "'wait'" : `${steps.length} step(s)`} and ${codes.join(', ') || 'no problem'} when ${name}`, () => {
      const plan = planFailures(aContext(aDesired(3, replicas, replicas ? all : pods(3)), specs, { unreachable }));
      expect(plan.steps === 'wait' ? 'wait' : plan.steps.map((s) => s.kind)).to.deep.equal(steps);
      expect(plan.problems.map((p) => p.code)).to.deep.equal(codes);
    });
  }
});
