import { expect } from 'chai';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy } from './cluster-checks.ts';
import { command, NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { myselfOf, type NodeView } from '../../../shared/core/cluster/topology.ts';
import { waitFor } from '../../support/wait-for.ts';

describe('cluster engine: placement after roles moved', function () {
  this.timeout(180_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  afterEach(async () => {
    await harness?.stopAll();
    await pool?.close();
  });

  it('re-pairs a replica left beside its master (4x1 on 3 nodes) and converges, then plans nothing', async () => {
    harness = new ClusterHarness({ suite: 13, nodes: 3, zones: 3 });
    await harness.addPods(8);
    pool = new NodePool();
    const p = pool;
    const desired = harness.desired(4, 1);
    await converge(p, desired);
    // As a roll's failovers can leave it: R (on Mo's node) replicates Mo, and Mo's own replica C
    // replicates R's former master Mr. Only a swap back frees a seat for R: C must move too.
    const t = await observe(desired.pods, p);
    const nodeOf = (v: NodeView) => desired.pods.find((x) => x.name === v.pod)?.nodeName;
    const byId = (id: string | null) => t.views.find((v) => v.id === id) as NodeView;
    const replicas = t.views.filter((v) => myselfOf(v).role === 'replica');
    const swap = replicas
      .flatMap((r) => replicas.map((c) => ({ r, c, mo: byId(myselfOf(c).masterId), mr: byId(myselfOf(r).masterId) })))
      .find(({ r, c, mo, mr }) => r !== c && mo !== mr && nodeOf(r) === nodeOf(mo) && nodeOf(c) !== nodeOf(mr));
    if (!swap) throw new Error('no layout to swap');
    await command(p, swap.r.address, 'REPLICATE', ['CLUSTER', 'REPLICATE', swap.mo.id]);
    await command(p, swap.c.address, 'REPLICATE', ['CLUSTER', 'REPLICATE', swap.mr.id]);
    await waitFor(
      async () =>
        (await observe(desired.pods, p)).views.every(
          (v) =>
            v.entries.some((e) => e.id === swap.r.id && e.masterId === swap.mo.id) &&
            v.entries.some((e) => e.id === swap.c.id && e.masterId === swap.mr.id),
        ),
      { what: `${swap.r.pod} beside ${swap.mo.pod} in every view` },
    );

    const plan = await converge(p, desired, { deadlineMs: 60_000 });
    expect(plan.problems).to.deep.equal([]);
    await expectHealthy(p, desired);
  });
});
