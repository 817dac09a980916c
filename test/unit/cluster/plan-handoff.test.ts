import { expect } from 'chai';
import type { PodPlacement } from '../../../shared/core/cluster/desired.ts';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';
import { aDesired, aTopology, idOf, pods, type NodeSpec } from './builders.ts';
import { expectShape, simulate } from './simulate.ts';

const leaving = (all: PodPlacement[], from: number) => all.map((p, i) => (i >= from ? { ...p, removing: true } : p));
const failovers = (steps: readonly Step[]) =>
  steps.flatMap((s) => (s.kind === 'failover' ? [`${s.master.pod}->${s.replica.pod} ${s.mode}`] : []));
const quarter = ['0-4095', '4096-8191', '8192-12287', '12288-16383'];
const third = ['0-5461', '5462-10922', '10923-16383'];

// Roles after a roll or failovers: masters no longer sit on the lowest ordinals.
const cases: {
  name: string;
  all: PodPlacement[];
  masters: number;
  replicas: number;
  specs: NodeSpec[];
  failovers: string[];
}[] = [
  {
    name: '4x1 -> 3x1 with masters on both leaving pods (redis-6, redis-7)',
    all: leaving(pods(8, 3), 6),
    masters: 3,
    replicas: 1,
    specs: [
      { pod: 4, slots: quarter[0] },
      { pod: 5, slots: quarter[1] },
      { pod: 6, slots: quarter[2] },
      { pod: 7, slots: quarter[3] },
      { pod: 0, role: 'replica', of: 5 },
      { pod: 1, role: 'replica', of: 6 },
      { pod: 2, role: 'replica', of: 7 },
      { pod: 3, role: 'replica', of: 4 },
    ],
    failovers: ['redis-6->redis-1 default', 'redis-7->redis-2 default'],
  },
  {
    name: '3x1 -> 3x0 with every master on a leaving pod',
    all: leaving(pods(6, 3), 3),
    masters: 3,
    replicas: 0,
    specs: [
      { pod: 3, slots: third[0] },
      { pod: 4, slots: third[1] },
      { pod: 5, slots: third[2] },
      { pod: 0, role: 'replica', of: 4 },
      { pod: 1, role: 'replica', of: 5 },
      { pod: 2, role: 'replica', of: 3 },
    ],
    failovers: ['redis-3->redis-2 default', 'redis-4->redis-0 default', 'redis-5->redis-1 default'],
  },
  {
    // redis-5's shard lives wholly on leaving pods; redis-2 is a replica no master needs at 3x0.
    name: '3x1 -> 3x0 with one shard wholly on leaving pods',
    all: leaving(pods(6, 3), 3),
    masters: 3,
    replicas: 0,
    specs: [
      { pod: 0, slots: third[0] },
      { pod: 1, slots: third[1] },
      { pod: 5, slots: third[2] },
      { pod: 2, role: 'replica', of: 0 },
      { pod: 3, role: 'replica', of: 1 },
      { pod: 4, role: 'replica', of: 5 },
    ],
    failovers: ['redis-5->redis-2 default'],
  },
];

describe('planHandoff (scale in after roles moved)', () => {
  for (const c of cases) {
    it(`ends with the asked shape and the leaving pods removable when scaling ${c.name}`, () => {
      const desired = aDesired(c.masters, c.replicas, c.all);
      const run = simulate(desired, c.specs);
      // Mastership leaves the leaving pods first, each by a planned failover, before any drain.
      const firstMigrate = run.steps.findIndex((s) => s.kind === 'migrate');
      expect(failovers(run.steps)).to.deep.equal(c.failovers);
      if (firstMigrate >= 0) expect(run.steps.slice(firstMigrate).some((s) => s.kind === 'failover')).to.equal(false);
      expectShape(desired, run.nodes);
      const last = run.plans.at(-1);
      expect(last?.converged, last?.progress.message).to.equal(true);
      expect([...(last?.removable ?? [])].sort()).to.deep.equal(c.all.filter((p) => p.removing).map((p) => p.name));
    });
  }

  it('waits, moving nothing, while the staying replica of a leaving master is still syncing', () => {
    const c = cases[1]!;
    const specs = c.specs.map((s) => (s.role === 'replica' ? { ...s, syncing: true } : s));
    const plan = planCluster(aDesired(3, 0, c.all), aTopology(c.all, specs), 1_000_000);
    expect(plan.steps).to.deep.equal([]);
    expect(plan.progress.phase).to.equal('removing');
  });

  it('waits while the leaving master does not list its replica yet (it would ignore the failover request)', () => {
    const c = cases[1]!;
    const topology = aTopology(c.all, c.specs);
    // redis-3 (leaving master) still sees redis-2, its new replica, as a master: gossip not arrived.
    const stale = {
      ...topology,
      views: topology.views.map((v) =>
        v.pod !== 'redis-3'
          ? v
          : {
              ...v,
              entries: v.entries.map((e) => (e.id === idOf(2) ? { ...e, role: 'master' as const, masterId: null } : e)),
            },
      ),
    };
    const plan = planCluster(aDesired(3, 0, c.all), stale, 1_000_000);
    expect(plan.steps.filter((s) => s.kind === 'failover' && s.master.pod === 'redis-3')).to.deep.equal([]);
  });
});
