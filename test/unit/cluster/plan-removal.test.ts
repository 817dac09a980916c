import { expect } from 'chai';
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import { planRemoval } from '../../../shared/core/cluster/plan-removal.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';
import { aContext, aDesired, aTopology, pods, threeByOne, type NodeSpec } from './builders.ts';

// redis-0..5 form a 3x1 cluster (threeByOne); redis-6 is a seventh pod, leaving unless a row says.
const all = pods(7);
const leaving = (...names: string[]): DesiredCluster =>
  aDesired(
    3,
    1,
    all.map((p) => (names.includes(p.name) ? { ...p, removing: true } : p)),
  );
const staying = (but: number[] = []) => [0, 1, 2, 3, 4, 5].filter((i) => !but.includes(i)).map((i) => `redis-${i}`);
// redis-6 is an empty master every member lists.
const withSeventh = (spec: Partial<NodeSpec> = {}): NodeSpec[] => [...threeByOne, { pod: 6, ...spec }];
// The last slot sits on redis-6.
const lastSlotOnSeventh = (spec: Partial<NodeSpec> = {}): NodeSpec[] => [
  ...threeByOne.map((s) => (s.pod === 2 ? { ...s, slots: '10923-16382' } : s)),
  { pod: 6, slots: '16383', ...spec },
];
const forgotten = (specs: NodeSpec[], by = [0, 1, 2, 3, 4, 5]) =>
  specs.map((s) => (by.includes(s.pod) ? { ...s, knows: specs.map((o) => o.pod).filter((p) => p !== 6) } : s));

// Steps as 'forget redis-N on pods' and 'reset redis-N'; problems as [code, message pattern].
const short = (s: Step) =>
  s.kind === 'forget'
    ? `forget redis-${s.id.replace(/^a+/, '') || '0'} on ${s.on.map((n) => n.pod).join(',')}`
    : s.kind === 'reset'
      ? `reset ${s.node.pod}`
      : s.kind;

describe('planRemoval', () => {
  const cases: [
    string,
    DesiredCluster,
    NodeSpec[],
    Parameters<typeof aContext>[2],
    { steps: string[]; removable: string[]; problems?: [string, RegExp][] },
  ][] = [
    ['plans nothing when no pod leaves', aDesired(3, 1, all.slice(0, 6)), threeByOne, {}, { steps: [], removable: [] }],
    [
      'forgets a leaving replica on every staying member, not on itself',
      leaving('redis-5'),
      threeByOne,
      {},
      { steps: [`forget redis-5 on ${staying([5])}`], removable: [] },
    ],
    [
      'forgets a leaving node on the staying members only, not on another leaving one',
      leaving('redis-5', 'redis-6'),
      withSeventh(),
      {},
      { steps: [`forget redis-5 on ${staying([5])}`, `forget redis-6 on ${staying([5])}`], removable: [] },
    ],
    [
      'forgets a leaving node on every staying member when only some of them list it (a partial view)',
      leaving('redis-6'),
      forgotten(withSeventh(), [3, 4, 5]),
      {},
      { steps: [`forget redis-6 on ${staying()}`], removable: [] },
    ],
    [
      'keeps a leaving master while it owns slots',
      leaving('redis-6'),
      lastSlotOnSeventh(),
      {},
      { steps: [], removable: [] },
    ],
    [
      'keeps a leaving master that does not answer while the members list it with slots',
      leaving('redis-6'),
      lastSlotOnSeventh(),
      { unreachable: [6] },
      { steps: [], removable: [] },
    ],
    [
      // Moved and not answering yet: only its id, at the old address, tells it apart.
      'keeps a leaving pod that does not answer while a slot owner no pod accounts for may be it',
      leaving('redis-6'),
      lastSlotOnSeventh({ listedAt: { ip: '127.9.9.7', by: [0, 1, 2, 3, 4, 5] } }),
      { unreachable: [6] },
      { steps: [], removable: [] },
    ],
    [
      'keeps an empty leaving master while a staying replica still follows it',
      leaving('redis-6'),
      [...threeByOne.map((s) => (s.pod === 5 ? { ...s, of: 6 } : s)), { pod: 6 }],
      {},
      { steps: [], removable: [] },
    ],
    [
      'resets a leaving node the staying members forgot but that still knows them',
      leaving('redis-6'),
      forgotten(withSeventh()),
      {},
      { steps: ['reset redis-6'], removable: [] },
    ],
    [
      'resets a leaving node known only to another leaving node',
      leaving('redis-5', 'redis-6'),
      forgotten(withSeventh(), [0, 1, 2, 3, 4]),
      {},
      { steps: [`forget redis-5 on ${staying([5])}`, 'reset redis-6'], removable: [] },
    ],
    [
      'reports removable a leaving pod that was forgotten and reset',
      leaving('redis-6'),
      withSeventh({ alone: true, keys: 0 }),
      {},
      { steps: [], removable: ['redis-6'] },
    ],
    [
      'reports removable a leaving pod that does not answer and that no member lists',
      leaving('redis-6'),
      threeByOne,
      { unreachable: [6] },
      { steps: [], removable: ['redis-6'] },
    ],
    [
      'keeps a leaving pod outside the cluster that claims slots',
      leaving('redis-6'),
      lastSlotOnSeventh({ alone: true, keys: 0 }),
      {},
      { steps: [], removable: [] },
    ],
    [
      // Deleting the pod deletes its volume: its keys may be the only copy (a node back without its nodes.conf).
      'keeps, and reports, a leaving pod outside the cluster that holds keys',
      leaving('redis-6'),
      withSeventh({ alone: true, keys: 5 }),
      {},
      {
        steps: [],
        removable: [],
        problems: [['StrandedKeys', /redis-6 is leaving but holds 5 key\(s\) outside the cluster/]],
      },
    ],
  ];
  for (const [name, desired, specs, options, expected] of cases) {
    it(name, () => {
      const plan = planRemoval(aContext(desired, specs, options));
      expect({ steps: plan.steps.map(short), removable: plan.removable }).to.deep.equal({
        steps: expected.steps,
        removable: expected.removable,
      });
      const problems = expected.problems ?? [];
      expect(plan.problems.map((p) => p.code)).to.deep.equal(problems.map(([code]) => code));
      plan.problems.forEach((p, i) => expect(p.message).to.match(problems[i]?.[1] as RegExp));
    });
  }

  it('finishes a FORGET one member missed, though that member is why the views disagree', () => {
    // redis-5 still lists redis-6 (it knows the most nodes: the anchor); the others forgot it.
    const plan = planCluster(leaving('redis-6'), aTopology(all, forgotten(withSeventh(), [0, 1, 2, 3, 4])), 1_000_000);
    expect(plan.steps.map(short)).to.deep.equal([`forget redis-6 on ${staying()}`]);
    expect(plan.progress.phase).to.equal('removing');
  });

  it('forgets an empty leaving node whatever cluster_state it reports', () => {
    const topology = aTopology(all, withSeventh());
    const views = topology.views.map((v) =>
      v.pod === 'redis-6' ? { ...v, info: { ...v.info, state: 'fail' as const } } : v,
    );
    const plan = planCluster(leaving('redis-6'), { ...topology, views }, 1_000_000);
    expect(plan.steps.map(short)).to.deep.equal([`forget redis-6 on ${staying()}`]);
  });

  it('waits, forgetting nothing, while a view still gives the leaving node a slot', () => {
    const specs = forgotten(lastSlotOnSeventh(), [0, 1, 2, 3, 4]).map((s) =>
      s.pod === 6 ? { ...s, slots: '16383', epoch: 1 } : s.pod === 2 ? { ...s, slots: '10923-16383' } : s,
    );
    const plan = planCluster(leaving('redis-6'), aTopology(all, specs), 1_000_000);
    expect(plan.steps).to.deep.equal([]);
    expect(plan.progress.message).to.match(/^waiting for the nodes to agree on the slot layout: /);
  });

  it('holds Ready down, with the pod not removable, while a leaving pod outside the cluster holds keys', () => {
    const plan = planCluster(leaving('redis-6'), aTopology(all, withSeventh({ alone: true, keys: 5 })), 1_000_000);
    expect(plan.problems.map((p) => p.code)).to.deep.equal(['StrandedKeys']);
    expect({ converged: plan.converged, removable: plan.removable }).to.deep.equal({ converged: false, removable: [] });
  });
});
