import { expect } from 'chai';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy, failOverTo } from './cluster-checks.ts';
import { bulkLoad, ClientLoad, type LoadReport } from './client-load.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import type { ClusterPlan } from '../../../shared/core/cluster/plan-types.ts';

/** Converges the scale-in under a client load; the steps' kinds, the last plan and the load's report. */
async function scaleIn(
  pool: NodePool,
  desired: DesiredCluster,
  load: ClientLoad,
  leaving: string[],
): Promise<{ kinds: string[]; plan: ClusterPlan; report: LoadReport }> {
  const kinds: string[] = [];
  load.start(4);
  let report: LoadReport | undefined;
  const plan = await converge(pool, desired, {
    deadlineMs: 150_000,
    onPlan: (p) =>
      kinds.push(...p.steps.map((s) => (s.kind === 'failover' ? `failover ${s.mode} ${s.master.pod}` : s.kind))),
    until: (p) => p.converged && p.removable.length === leaving.length,
  }).finally(async () => {
    report = await load.stop();
  });
  if (!report) throw new Error('no load report');
  return { kinds, plan, report };
}

describe('cluster engine: scale in after roles moved', function () {
  this.timeout(240_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  let load: ClientLoad | undefined;
  afterEach(async () => {
    await load?.close();
    await harness?.stopAll();
    await pool?.close();
  });

  const cases = [
    {
      name: '3x1 -> 3x0 with every master on a leaving pod: hands the masters over, no migration',
      suite: 11,
      pods: 6,
      from: [3, 1],
      to: [3, 0],
      leaving: ['redis-3', 'redis-4', 'redis-5'],
      migrates: false,
    },
    {
      name: '4x1 -> 3x1 with masters on both leaving pods: hands them over, then drains the surplus',
      suite: 12,
      pods: 8,
      from: [4, 1],
      to: [3, 1],
      leaving: ['redis-6', 'redis-7'],
      migrates: true,
    },
  ] as const;
  for (const c of cases) {
    it(`${c.name}; loses no write, ends with the asked shape, releases the pods`, async () => {
      harness = new ClusterHarness({ suite: c.suite, nodes: 3, zones: 3 });
      await harness.addPods(c.pods);
      pool = new NodePool();
      const before = harness.desired(c.from[0], c.from[1]);
      await converge(pool, before);
      await bulkLoad(await observe(before.pods, pool), `s${c.suite}`, 10_000);
      // Roles moved (as after a roll): the replicas on the leaving pods take over their masters.
      await failOverTo(pool, before, [...c.leaving]);
      load = new ClientLoad([harness.pods[0]!.placement.address], `s${c.suite}`, 10_000);
      const desired = harness.desired(c.to[0], c.to[1], [...c.leaving]);
      const { kinds, plan, report } = await scaleIn(pool, desired, load, [...c.leaving]);
      // Mastership leaves each leaving pod first, by a planned failover, before any drain (a
      // failover Redis abandoned on a loaded machine is planned again: counted once per master).
      const failovers = kinds.filter((k) => k.startsWith('failover'));
      expect(failovers.every((k) => k.startsWith('failover default '))).to.equal(true, failovers.join(', '));
      expect([...new Set(failovers.map((k) => k.split(' ')[2]))].sort()).to.deep.equal([...c.leaving].sort());
      expect(kinds.slice(0, failovers.length)).to.deep.equal(failovers);
      expect(kinds.includes('migrate')).to.equal(c.migrates);
      expect([...plan.removable].sort()).to.deep.equal(c.leaving);
      expect(report.errors, report.samples.join('; ')).to.equal(0);
      expect(await load.verify()).to.deep.equal([]);
      await expectHealthy(pool, desired);
    });
  }
});
