import { expect } from 'chai';
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { planForgetGhosts, planMeet } from '../../../shared/core/cluster/plan-membership.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';
import { aContext, aDesired, aLine, idOf, pods, threeByOne, type NodeSpec } from './builders.ts';

// redis-0..5 form a 3x1 cluster (threeByOne); redis-6 is a seventh pod. Ids: node N is idOf(N).
const all = pods(7);
const desired = aDesired(3, 1, all);
const removing = (name: string): DesiredCluster =>
  aDesired(
    3,
    1,
    all.map((p) => (p.name === name ? { ...p, removing: true } : p)),
  );
const keeping = (...ids: string[]): DesiredCluster => ({ ...desired, keepIds: new Set(ids) });
const ghost = idOf(9);
const seventh = all[6]?.address.ip as string;
const with6 = (spec: Partial<NodeSpec>): NodeSpec[] => [...threeByOne, { pod: 6, alone: true, ...spec }];
const onEveryone = (but?: number) => [0, 1, 2, 3, 4, 5].filter((i) => i !== but).map((i) => `redis-${i}`);
const GHOST_SILENT = 60_000;

// Steps as 'meet from>to' (to named by its pod) and 'forget #N on pods'; problems as [code, message pattern].
const label = (ip: string) => all.find((p) => p.address.ip === ip)?.name ?? ip;
const short = (s: Step) =>
  s.kind === 'meet'
    ? `meet ${s.from.pod}>${label(s.to.ip)}`
    : s.kind === 'forget'
      ? `forget #${s.id.replace(/^a+/, '')} on ${s.on.map((n) => n.pod).join(',')}`
      : s.kind;

describe('planMeet and planForgetGhosts (membership)', () => {
  const cases: [string, DesiredCluster, NodeSpec[], Parameters<typeof aContext>[2], string[], [string, RegExp][]][] = [
    ['plans nothing when every pod is a member', desired, threeByOne, {}, [], []],
    ['MEETs a fresh pod from the anchor', desired, with6({ keys: 0, epoch: 0 }), {}, ['meet redis-0>redis-6'], []],
    [
      'MEETs from a staying pod even when a leaving pod knows more nodes',
      removing('redis-5'),
      [
        ...threeByOne.map((s) => (s.pod === 5 ? s : { ...s, knows: [0, 1, 2, 3, 4, 5] })),
        { pod: 6, knows: [5], keys: 0, epoch: 0 },
      ],
      {},
      ['meet redis-0>redis-6'],
      [],
    ],
    ['leaves out a pod outside the cluster that is being removed', removing('redis-6'), with6({}), {}, [], []],
    [
      'does not MEET twice while the anchor shows a handshake at the address',
      desired,
      with6({}),
      { lines: (v) => (v === 0 ? [aLine('b'.repeat(40), seventh, { flag: 'handshake', silentMs: 0 })] : []) },
      [],
      [],
    ],
    [
      'MEETs a pod outside that claims slots no member owns (its shard was forgotten)',
      desired,
      threeByOne.map((s) => (s.pod === 2 ? { ...s, alone: true } : s)),
      {},
      ['meet redis-0>redis-2'],
      [],
    ],
    [
      'refuses a pod outside that claims slots a member owns',
      desired,
      with6({ slots: '0-100', epoch: 0 }),
      {},
      [],
      [['ConflictingStranger', /redis-6 is outside the cluster and claims slots the cluster owns/]],
    ],
    [
      // Joining it would hand it the slots (the higher epoch wins) and drop the owner's keys.
      'refuses a pod outside that claims slots a member owns, even with a higher config epoch',
      desired,
      with6({ slots: '0-100', epoch: 20 }),
      {},
      [],
      [['ConflictingStranger', /redis-6 is outside the cluster and claims slots the cluster owns/]],
    ],
    [
      'MEETs a member from the anchor when it still believes it is at its old address',
      desired,
      threeByOne.map((s) => (s.pod === 3 ? { ...s, listedAt: { ip: '127.9.9.3', by: [3] } } : s)),
      {},
      ['meet redis-0>redis-3'],
      [],
    ],
    [
      'MEETs a member from the view that still lists it at its old address',
      desired,
      threeByOne.map((s) => (s.pod === 3 ? { ...s, listedAt: { ip: '127.9.9.3', by: [1] } } : s)),
      {},
      ['meet redis-1>redis-3'],
      [],
    ],
    [
      'MEETs a moved member once when it and others still hold its old address',
      desired,
      threeByOne.map((s) => (s.pod === 3 ? { ...s, listedAt: { ip: '127.9.9.3', by: [3, 1, 2] } } : s)),
      {},
      ['meet redis-0>redis-3'],
      [],
    ],
    [
      'forgets on every member a failed id whose address now answers with another id',
      desired,
      with6({}).map((s) => (s.pod === 6 ? { pod: 6 } : s)),
      { lines: () => [aLine(ghost, seventh, { flag: 'fail' })] },
      [`forget #9 on ${[...onEveryone(), 'redis-6']}`],
      [],
    ],
    [
      'forgets a replaced id on the members that do not list it too (a partial view)',
      desired,
      [...threeByOne, { pod: 6 }],
      { lines: (v) => (v < 3 ? [aLine(ghost, seventh, { flag: 'fail' })] : []) },
      [`forget #9 on ${[...onEveryone(), 'redis-6']}`],
      [],
    ],
    [
      'keeps a replaced id that still owns slots',
      desired,
      [...threeByOne.map((s) => (s.pod === 2 ? { ...s, slots: '10923-16382' } : s)), { pod: 6 }],
      { lines: () => [aLine(ghost, seventh, { flag: 'fail', slots: '16383', epoch: 9 })] },
      [],
      [],
    ],
    [
      'keeps a replaced id that a member replicates',
      desired,
      [...threeByOne, { pod: 6, role: 'replica', of: 9 }],
      { lines: () => [aLine(ghost, seventh, { flag: 'fail' })] },
      [],
      [],
    ],
    [
      'keeps a replaced id the cluster expects back (keepIds)',
      keeping(ghost),
      [...threeByOne, { pod: 6 }],
      { lines: () => [aLine(ghost, seventh, { flag: 'fail' })] },
      [],
      [],
    ],
    [
      'forgets a failed id no pod carries once it was silent past the grace period',
      desired,
      threeByOne,
      { lines: () => [aLine(ghost, '127.9.9.9', { flag: 'fail', silentMs: GHOST_SILENT })] },
      [`forget #9 on ${onEveryone()}`],
      [],
    ],
    [
      'keeps a failed id no pod carries while it was silent less than the grace period',
      desired,
      threeByOne,
      { lines: () => [aLine(ghost, '127.9.9.9', { flag: 'fail', silentMs: 5_000 })] },
      [],
      [],
    ],
    [
      'keeps a silent id no pod carries that no member marks failed',
      desired,
      threeByOne,
      { lines: () => [aLine(ghost, '127.9.9.9', { silentMs: GHOST_SILENT })] },
      [],
      [],
    ],
    [
      'keeps a failed id at the address of a pod that does not answer (it comes back with its nodes.conf)',
      desired,
      threeByOne,
      { lines: () => [aLine(ghost, seventh, { flag: 'fail', silentMs: GHOST_SILENT })] },
      [],
      [],
    ],
    [
      // Redis neither pings nor fails an id it marked NOADDR, and gossips it to nobody: one
      // member keeping it would hold the views apart for good.
      'forgets an id one member lists without an address (it answered there with another id) once silent past the grace period',
      desired,
      threeByOne,
      {
        lines: (v) =>
          v === 5 ? [aLine(ghost, '', { flag: 'noaddr', role: 'replica', of: idOf(0), silentMs: GHOST_SILENT })] : [],
      },
      [`forget #9 on ${onEveryone()}`],
      [],
    ],
    [
      'keeps an id listed without an address while it was silent less than the grace period',
      desired,
      threeByOne,
      { lines: () => [aLine(ghost, '', { flag: 'noaddr', silentMs: 5_000 })] },
      [],
      [],
    ],
    [
      'keeps an id listed without an address that a member replicates',
      desired,
      [...threeByOne, { pod: 6, role: 'replica', of: 9 }],
      { lines: () => [aLine(ghost, '', { flag: 'noaddr', silentMs: GHOST_SILENT })] },
      [],
      [],
    ],
    [
      'leaves a failed id at the address of a leaving pod to the removal phase',
      removing('redis-6'),
      threeByOne,
      { lines: () => [aLine(ghost, seventh, { flag: 'fail', silentMs: GHOST_SILENT })] },
      [],
      [],
    ],
  ];
  for (const [name, wanted, specs, options, steps, problems] of cases) {
    it(name, () => {
      const ctx = aContext(wanted, specs, options);
      const meet = planMeet(ctx);
      expect([...meet.steps, ...planForgetGhosts(ctx)].map(short)).to.deep.equal(steps);
      expect(meet.problems.map((p) => p.code)).to.deep.equal(problems.map(([code]) => code));
      meet.problems.forEach((p, i) => expect(p.message).to.match(problems[i]?.[1] as RegExp));
    });
  }
});
