import { expect } from 'chai';
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { isFresh, planBootstrap } from '../../../shared/core/cluster/plan-bootstrap.ts';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';
import { aContext, aDesired, aLine, aTopology, pods, type NodeSpec } from './builders.ts';

// Six pods on three Kubernetes nodes for a 3x1 cluster; fresh: alone, no key, no config epoch, and
// no address of its own yet (Redis learns it from the first MEET).
const all = pods(6);
const desired = aDesired(3, 1, all);
const leaving = (name: string): DesiredCluster =>
  aDesired(
    3,
    1,
    all.map((p) => (p.name === name ? { ...p, removing: true } : p)),
  );
const fresh = (change: (s: NodeSpec) => NodeSpec = (s) => s): NodeSpec[] =>
  all.map((_, pod) => change({ pod, alone: true, keys: 0, epoch: 0, listedAt: { ip: '', by: [pod] } }));
const at = (pod: number, spec: Partial<NodeSpec>) => fresh((s) => (s.pod === pod ? { ...s, ...spec } : s));
const foreign = 'c'.repeat(40);
const bootstrap = [
  'epoch redis-0 1',
  'epoch redis-1 2',
  'epoch redis-2 3',
  'addSlots redis-0 0-5461',
  'addSlots redis-1 5462-10922',
  'addSlots redis-2 10923-16383',
];
const meets = (...to: number[]) => to.map((i) => `meet redis-0>redis-${i}`);

// The phase as planCluster runs it: only a fresh cluster is bootstrapped ('not fresh' otherwise).
// Steps as 'epoch pod n', 'addSlots pod ranges', 'meet from>to'; problems as [code, message pattern].
const label = (ip: string) => all.find((p) => p.address.ip === ip)?.name ?? ip;
const short = (s: Step) =>
  s.kind === 'setConfigEpoch'
    ? `epoch ${s.node.pod} ${s.epoch}`
    : s.kind === 'addSlots'
      ? `addSlots ${s.node.pod} ${s.ranges.map((r) => `${r.start}-${r.end}`).join(',')}`
      : s.kind === 'meet'
        ? `meet ${s.from.pod}>${label(s.to.ip)}`
        : s.kind;

describe('planBootstrap', () => {
  const cases: {
    name: string;
    desired?: DesiredCluster;
    specs: NodeSpec[];
    options?: Parameters<typeof aContext>[2];
    plan: string[] | 'wait' | 'not fresh';
    problems?: [string, RegExp][];
  }[] = [
    {
      name: 'sets distinct epochs and even ranges on the masters, then MEETs every pod from the first',
      specs: fresh(),
      plan: [...bootstrap, ...meets(1, 2, 3, 4, 5)],
    },
    {
      name: 'waits while a pod does not answer (it may hold data)',
      specs: fresh(),
      options: { unreachable: [5] },
      plan: 'wait',
    },
    { name: 'refuses when a node holds keys', specs: at(4, { keys: 3 }), plan: 'not fresh' },
    {
      name: 'refuses when a leaving pod holds keys',
      desired: leaving('redis-5'),
      specs: at(5, { keys: 3 }),
      plan: 'not fresh',
    },
    {
      name: 'refuses when a node claims slots (a bootstrap that half ran)',
      specs: at(1, { slots: '5462-10922' }),
      plan: 'not fresh',
    },
    {
      name: 'refuses when a pod is in another cluster whose nodes own slots',
      specs: fresh(),
      options: {
        lines: (v) => (v === 1 ? [aLine(foreign, '10.1.1.1', { slots: '0-16383', epoch: 1, silentMs: 0 })] : []),
      },
      plan: 'not fresh',
    },
    {
      // Its MEET would pull the other cluster's nodes into this one.
      name: 'refuses when a pod is in another cluster, even one that owns no slot yet',
      specs: fresh(),
      options: { lines: (v) => (v === 1 ? [aLine(foreign, '10.1.1.1', { silentMs: 0 })] : []) },
      plan: 'wait',
      problems: [['ForeignCluster', /redis-1 knows 1 node\(s\) no pod of this cluster carries/]],
    },
    {
      name: 'sets no epoch on a master that already has one (a pass that stopped after it)',
      specs: at(1, { epoch: 2 }),
      plan: [...bootstrap.filter((s) => s !== 'epoch redis-1 2'), ...meets(1, 2, 3, 4, 5)],
    },
    {
      name: 'sets no epoch on a master that knows others, and MEETs no pod the first master knows',
      specs: fresh((s) => (s.pod === 0 || s.pod === 3 ? { ...s, alone: false, knows: [0, 3] } : s)),
      plan: [...bootstrap.filter((s) => s !== 'epoch redis-0 1'), ...meets(1, 2, 4, 5)],
    },
    {
      name: 'leaves a leaving pod out: no slots, no MEET',
      desired: leaving('redis-2'),
      specs: fresh(),
      plan: [
        'epoch redis-0 1',
        'epoch redis-1 2',
        'epoch redis-5 3',
        'addSlots redis-0 0-5461',
        'addSlots redis-1 5462-10922',
        'addSlots redis-5 10923-16383',
        ...meets(1, 3, 4, 5),
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const ctx = aContext(c.desired ?? desired, c.specs, c.options);
      const plan = isFresh(ctx) ? planBootstrap(ctx) : undefined;
      expect(plan === undefined ? 'not fresh' : plan.steps === 'wait' ? 'wait' : plan.steps.map(short)).to.deep.equal(
        c.plan,
      );
      const problems = c.problems ?? [];
      expect((plan?.problems ?? []).map((p) => p.code)).to.deep.equal(problems.map(([code]) => code));
      plan?.problems.forEach((p, i) => expect(p.message).to.match(problems[i]?.[1] as RegExp));
    });
  }

  it('plans nothing, and says why, when a pod is in another cluster that owns no slot yet', () => {
    const topology = aTopology(all, fresh(), {
      lines: (v) => (v === 1 ? [aLine(foreign, '10.1.1.1', { silentMs: 0 })] : []),
    });
    const plan = planCluster(desired, topology, 1_000_000);
    expect(plan.steps).to.deep.equal([]);
    expect(plan.problems.map((p) => p.code)).to.deep.equal(['ForeignCluster']);
    expect(plan.converged).to.equal(false);
  });
});
