import { expect } from 'chai';
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { isFresh, planBootstrap } from '../../../shared/core/cluster/plan-bootstrap.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';
import { aContext, aDesired, aLine, pods, type NodeSpec } from './builders.ts';

// Six pods on three Kubernetes nodes for a 3x1 cluster; fresh: alone, no key, no config epoch.
const all = pods(6);
const desired = aDesired(3, 1, all);
const leaving = (name: string): DesiredCluster =>
  aDesired(
    3,
    1,
    all.map((p) => (p.name === name ? { ...p, removing: true } : p)),
  );
const fresh = (change: (s: NodeSpec) => NodeSpec = (s) => s): NodeSpec[] =>
  all.map((_, pod) => change({ pod, alone: true, keys: 0, epoch: 0 }));
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
  const cases: [string, DesiredCluster, NodeSpec[], Parameters<typeof aContext>[2], string[] | 'wait' | 'not fresh'][] =
    [
      [
        'sets distinct epochs and even ranges on the masters, then MEETs every pod from the first',
        desired,
        fresh(),
        {},
        [...bootstrap, ...meets(1, 2, 3, 4, 5)],
      ],
      ['waits while a pod does not answer (it may hold data)', desired, fresh(), { unreachable: [5] }, 'wait'],
      ['refuses when a node holds keys', desired, at(4, { keys: 3 }), {}, 'not fresh'],
      ['refuses when a leaving pod holds keys', leaving('redis-5'), at(5, { keys: 3 }), {}, 'not fresh'],
      [
        'refuses when a node claims slots (a bootstrap that half ran)',
        desired,
        at(1, { slots: '5462-10922' }),
        {},
        'not fresh',
      ],
      [
        'refuses when a pod is in another cluster whose nodes own slots',
        desired,
        fresh(),
        { lines: (v) => (v === 1 ? [aLine(foreign, '10.1.1.1', { slots: '0-16383', epoch: 1, silentMs: 0 })] : []) },
        'not fresh',
      ],
      [
        'sets no epoch on a master that already has one (a pass that stopped after it)',
        desired,
        at(1, { epoch: 2 }),
        {},
        [...bootstrap.filter((s) => s !== 'epoch redis-1 2'), ...meets(1, 2, 3, 4, 5)],
      ],
      [
        'sets no epoch on a master that knows others, and MEETs no pod the first master knows',
        desired,
        fresh((s) => (s.pod === 0 || s.pod === 3 ? { ...s, alone: false, knows: [0, 3] } : s)),
        {},
        [...bootstrap.filter((s) => s !== 'epoch redis-0 1'), ...meets(1, 2, 4, 5)],
      ],
      [
        'leaves a leaving pod out: no slots, no MEET',
        leaving('redis-2'),
        fresh(),
        {},
        [
          'epoch redis-0 1',
          'epoch redis-1 2',
          'epoch redis-5 3',
          'addSlots redis-0 0-5461',
          'addSlots redis-1 5462-10922',
          'addSlots redis-5 10923-16383',
          ...meets(1, 3, 4, 5),
        ],
      ],
    ];
  for (const [name, wanted, specs, options, expected] of cases) {
    it(name, () => {
      const ctx = aContext(wanted, specs, options);
      const plan = isFresh(ctx) ? planBootstrap(ctx) : 'not fresh';
      expect(typeof plan === 'string' ? plan : plan.map(short)).to.deep.equal(expected);
    });
  }
});
