import { expect } from 'chai';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy } from './cluster-checks.ts';
import { bulkLoad, ClientLoad } from './client-load.ts';
import { command, NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../../shared/io/redis/converge.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { myselfOf } from '../../../shared/core/cluster/topology.ts';
import { waitFor } from '../../support/wait-for.ts';

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

  it('3x1 -> 3x0 with every master on a leaving pod: hands the masters over, loses no write, releases the pods', async () => {
    const KEYS = 20_000;
    harness = new ClusterHarness({ suite: 11, nodes: 3, zones: 3 });
    await harness.addPods(6);
    pool = new NodePool();
    const p = pool;
    await converge(p, harness.desired(3, 1));
    await bulkLoad(await observe(harness.desired(3, 1).pods, p), 'si', KEYS);
    // Roles moved (as after a roll): every master now sits on redis-3..5, the pods a scale-in removes.
    const leaving = ['redis-3', 'redis-4', 'redis-5'];
    for (const view of (await observe(harness.desired(3, 1).pods, p)).views) {
      if (myselfOf(view).role === 'replica' && leaving.includes(view.pod)) await command(p, view.address, 'FAILOVER', ['CLUSTER', 'FAILOVER']);
    }
    await waitFor(async () => {
      const t = await observe(harness!.desired(3, 1).pods, p);
      return t.views.filter((v) => myselfOf(v).role === 'master' && myselfOf(v).slots.length > 0).every((v) => leaving.includes(v.pod))
        && t.views.every((v) => v.info.state === 'ok');
    }, { what: 'the masters to sit on the leaving pods' });

    load = new ClientLoad([harness.pods[0]!.placement.address], 'si', KEYS);
    load.start(4);
    const desired = harness.desired(3, 0, leaving);
    const kinds: string[] = [];
    let report: Awaited<ReturnType<ClientLoad['stop']>> | undefined;
    const plan = await converge(p, desired, {
      deadlineMs: 90_000,
      onPlan: (plan) => kinds.push(...plan.steps.map((s) => (s.kind === 'failover' ? `failover ${s.mode}` : s.kind))),
      until: (plan) => plan.converged && plan.removable.length === leaving.length,
    }).finally(async () => { report = await load!.stop(); });
    if (!report) throw new Error('no load report');
    expect(kinds.filter((k) => k.startsWith('failover'))).to.deep.equal(['failover default', 'failover default', 'failover default']);
    expect(kinds).not.to.include('migrate');
    expect([...plan.removable].sort()).to.deep.equal(leaving);
    expect(report.errors, report.samples.join('; ')).to.equal(0);
    expect(await load.verify()).to.deep.equal([]);
    await expectHealthy(p, desired);
  });
});
