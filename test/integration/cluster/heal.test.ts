import { expect } from 'chai';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy } from './cluster-checks.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import { applyStep } from '../../../shared/io/redis/apply.ts';
import { addressKey, myselfOf } from '../../../shared/core/cluster/topology.ts';
import type { ClusterPlan } from '../../../shared/core/cluster/plan-types.ts';
import { waitFor } from '../../support/wait-for.ts';
import { command } from '../../../shared/io/redis/connection.ts';

describe('cluster engine: heal', function () {
  this.timeout(300_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  afterEach(async () => {
    await pool?.close();
    await harness?.stopAll();
  });

  it('rejoins a node restarted on a new IP with its nodes.conf; the old address leaves every view', async () => {
    harness = new ClusterHarness({ suite: 5, nodes: 3, zones: 3 });
    await harness.addPods(6);
    pool = new NodePool();
    await converge(pool, harness.desired(3, 1));
    const moved = harness.pods[4]!;
    const oldAddress = addressKey(moved.placement.address);
    await harness.restart(moved, { newIp: true });
    const desired = harness.desired(3, 1);
    await converge(pool, desired, { deadlineMs: 60_000, until: (p) => p.converged });
    await expectHealthy(pool, desired);
    // Gossip still in flight can name the old address for a moment (a handshake Redis drops
    // after its node timeout): every view must be rid of it within a few timeouts, longer on a
    // busy machine, where gossip runs late.
    const stale = () =>
      observe(desired.pods, pool!).then((t) =>
        t.views.flatMap((v) =>
          v.entries
            .filter((e) => e.address && addressKey(e.address) === oldAddress)
            .map((e) => `${v.pod} sees ${e.id.slice(0, 8)} ${[...e.flags].join(',')}`),
        ),
      );
    let seen: string[] = [];
    await waitFor(async () => (seen = await stale()).length === 0, {
      what: `every view rid of ${oldAddress}`,
      timeout: 180_000,
      interval: 500,
    }).catch((error: Error) => {
      throw new Error(`${error.message}; still: ${seen.join('; ')}`);
    });
  });

  it('re-attaches a master that came back empty as a replica after Redis failed over', async () => {
    harness = new ClusterHarness({ suite: 6, nodes: 3, zones: 3 });
    await harness.addPods(6);
    pool = new NodePool();
    const desired = harness.desired(3, 1);
    await converge(pool, desired);
    const before = await observe(desired.pods, pool);
    const victim = before.views.find((v) => myselfOf(v).role === 'master' && myselfOf(v).slots.length > 0)!;
    const pod = harness.pods.find((p) => p.placement.name === victim.pod)!;
    await pod.server?.kill('SIGKILL');
    // Redis promotes the replica by itself (node timeout 2 s).
    await waitFor(
      async () => {
        const t = await observe(
          desired.pods.filter((p) => p.name !== victim.pod),
          pool!,
        );
        return t.views.every(
          (v) =>
            v.info.state === 'ok' &&
            v.entries.some((e) => e.id === victim.id && e.slots.length === 0 && e.failing === 'fail'),
        );
      },
      { what: 'the replica to take over', interval: 250 },
    );
    await harness.restart(pod, { fresh: true });
    await converge(pool, harness.desired(3, 1), { deadlineMs: 60_000 });
    const after = await expectHealthy(pool, harness.desired(3, 1));
    const returned = after.views.find((v) => v.pod === victim.pod)!;
    expect(myselfOf(returned).role).to.equal('replica');
    for (const view of after.views)
      expect(
        view.entries.map((e) => e.id),
        `${view.pod} still knows the lost id`,
      ).not.to.include(victim.id);
  });

  /** A 3x1 cluster with a seventh pod in it: redis-6's view and the six others'. */
  async function withSeventh(suite: number) {
    harness = new ClusterHarness({ suite, nodes: 3, zones: 3 });
    await harness.addPods(7);
    pool = new NodePool();
    await converge(pool, harness.desired(3, 1));
    const before = await observe(harness.desired(3, 1).pods, pool);
    const leaving = before.views.find((v) => v.pod === 'redis-6')!;
    return { leaving, others: before.views.filter((v) => v !== leaving) };
  }

  /** Converges the removal of redis-6 until it is removable; then no view may know `id`. */
  async function removeSeventh(id: string, onPlan?: (plan: ClusterPlan) => void): Promise<void> {
    const desired = harness!.desired(3, 1, ['redis-6']);
    const plan = await converge(pool!, desired, {
      deadlineMs: 90_000,
      ...(onPlan ? { onPlan } : {}),
      until: (p) => p.converged && p.removable.length === 1,
    });
    expect(plan.removable).to.deep.equal(['redis-6']);
    const after = await expectHealthy(pool!, desired);
    for (const view of after.views)
      expect(
        view.entries.map((e) => e.id),
        `${view.pod} still knows the removed id`,
      ).not.to.include(id);
  }

  it('forgets an id one node still lists without an address after that node was reset elsewhere', async () => {
    // A removal left half done (FORGET missed one node, then the removed node was reset): the
    // node that missed it pings the old address, finds another id there and marks the old id
    // NOADDR, which Redis never fails nor forgets. Until it is forgotten the views disagree.
    const { leaving, others } = await withSeventh(17);
    const keeper = others.at(-1)!;
    for (const view of others.filter((v) => v !== keeper))
      await command(pool!, view.address, 'FORGET', ['CLUSTER', 'FORGET', leaving.id]);
    await command(pool!, leaving.address, 'RESET', ['CLUSTER', 'RESET', 'HARD']);
    const keeperPod = harness!.desired(3, 1).pods.filter((p) => p.name === keeper.pod);
    await waitFor(
      async () =>
        (await observe(keeperPod, pool!)).views[0]?.entries.some((e) => e.id === leaving.id && e.address === null) ??
        false,
      { what: `${keeper.pod} to list the reset id without an address`, interval: 250 },
    );
    await removeSeventh(leaving.id);
  });

  it('finishes a removal whose FORGET one node missed, without waiting for the views to agree', async () => {
    const { leaving, others } = await withSeventh(18);
    for (const view of others.slice(1)) await command(pool!, view.address, 'FORGET', ['CLUSTER', 'FORGET', leaving.id]);
    // The node that missed it knows one node more than the others: the views disagree until it
    // forgets too, and Redis' 60 s ban keeps the others from learning the id back meanwhile.
    const phases: string[] = [];
    await removeSeventh(leaving.id, (p) => phases.push(`${p.progress.phase} ${p.steps.map((s) => s.kind).join(',')}`));
    const forgot = phases.indexOf('removing forget');
    expect(forgot, phases.join('; ')).to.be.at.least(0);
    expect(
      phases.slice(0, forgot).filter((p) => p.startsWith('waiting')),
      phases.join('; '),
    ).to.deep.equal([]);
  });

  it('reports a master without replica that died, and leaves its slots with it until it returns', async () => {
    harness = new ClusterHarness({ suite: 7, nodes: 3, zones: 3 });
    await harness.addPods(3);
    pool = new NodePool();
    const desired = harness.desired(3, 0);
    await converge(pool, desired);
    const victim = harness.pods[2]!;
    const victimId = (await observe([victim.placement], pool)).views[0]!.id;
    await victim.server?.kill('SIGKILL');
    let plan: ClusterPlan | undefined;
    // Let Redis mark it failed, then apply a few passes: nothing may take its slots.
    for (let pass = 0; pass < 12; pass++) {
      const topology = await observe(desired.pods, pool);
      plan = planCluster(desired, topology, Date.now(), { autoFailoverGraceMs: 0, ghostGraceMs: 0 });
      for (const step of plan.steps) await applyStep(pool, step);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(plan?.problems.map((p) => p.code)).to.include('ShardLost');
    expect(plan?.steps).to.deep.equal([]);
    const survivors = await observe(
      desired.pods.filter((p) => p.name !== victim.placement.name),
      pool,
    );
    for (const view of survivors.views) {
      const owner = view.entries.find((e) => e.id === victimId);
      expect(owner?.slots.length, `${view.pod} still gives the dead master its slots`).to.be.greaterThan(0);
    }
    await harness.restart(victim);
    await converge(pool, desired, { deadlineMs: 60_000 });
    await expectHealthy(pool, desired);
  });
});
