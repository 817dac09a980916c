import { expect } from 'chai';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy } from './cluster-checks.ts';
import { bulkLoad, ClientLoad } from './client-load.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { observe } from '../../../shared/io/redis/observe.ts';

describe('cluster engine: rebalance and drain under client load', function () {
  this.timeout(300_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  let load: ClientLoad | undefined;
  after(async () => {
    await load?.close();
    await pool?.close();
    await harness?.stopAll();
  });

  const KEYS = 200_000;

  it('rebalances 3 -> 6 masters with 200,000 keys: zero client errors, every key has its last value', async () => {
    harness = new ClusterHarness({ suite: 3, nodes: 3, zones: 3 });
    await harness.addPods(6);
    pool = new NodePool();
    await converge(pool, harness.desired(3, 1));
    await bulkLoad(await observe(harness.desired(3, 1).pods, pool), 'rb', KEYS);
    load = new ClientLoad([harness.pods[0]!.placement.address], 'rb', KEYS);
    load.start();
    await harness.addPods(6);
    const desired = harness.desired(6, 1);
    const phases = new Set<string>();
    await converge(pool, desired, { deadlineMs: 240_000, onPlan: (p) => phases.add(p.progress.phase) });
    const report = await load.stop();
    expect(phases).to.include('migrating');
    expect(report.ops).to.be.greaterThan(0);
    expect(report.errors, report.samples.join('; ')).to.equal(0);
    expect(await load.verify()).to.deep.equal([]);
    await expectHealthy(pool, desired);
  });

  it('drains 6 -> 3 masters the same way and reports the removed pods removable', async () => {
    if (!harness || !pool || !load) throw new Error('needs the cluster of the previous test');
    const removing = harness.pods.slice(6).map((p) => p.placement.name);
    const desired = harness.desired(3, 1, removing);
    load.start();
    const plan = await converge(pool, desired, {
      deadlineMs: 240_000,
      until: (p) => p.converged && p.removable.length === removing.length,
    });
    const report = await load.stop();
    expect([...plan.removable].sort()).to.deep.equal([...removing].sort());
    expect(report.errors, report.samples.join('; ')).to.equal(0);
    expect(await load.verify()).to.deep.equal([]);
    const topology = await expectHealthy(pool, desired);
    const removedIds = new Set(
      (
        await observe(
          desired.pods.filter((p) => p.removing),
          pool,
        )
      ).views.map((v) => v.id),
    );
    for (const view of topology.views)
      for (const e of view.entries)
        expect(removedIds.has(e.id), `${view.pod} still knows a removed node`).to.equal(false);
  });
});
