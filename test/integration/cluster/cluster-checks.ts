// What a user would check on a running cluster, for the engine's integration tests.
import { expect } from 'chai';
import { command, type NodePool } from '../../../shared/io/redis/connection.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { myselfOf, type Topology } from '../../../shared/core/cluster/topology.ts';
import { countSlots } from '../../../shared/core/cluster/slots.ts';
import { waitFor } from '../../support/wait-for.ts';

export async function expectHealthy(pool: NodePool, desired: DesiredCluster): Promise<Topology> {
  const topology = await observe(
    desired.pods.filter((p) => !p.removing),
    pool,
  );
  expect(topology.unreachable).to.deep.equal([]);
  for (const view of topology.views) expect(view.info.state, `${view.pod} cluster_state`).to.equal('ok');
  const masters = topology.views.filter((v) => myselfOf(v).role === 'master' && myselfOf(v).slots.length > 0);
  expect(masters.length).to.equal(desired.masters);
  expect(masters.reduce((n, v) => n + countSlots(myselfOf(v).slots), 0)).to.equal(16384);
  const zones = new Set(desired.pods.map((p) => p.zone)).size;
  const podOf = (id: string) => desired.pods.find((p) => p.name === topology.views.find((v) => v.id === id)?.pod);
  for (const master of masters) {
    const replicas = topology.views.filter((v) => myselfOf(v).masterId === master.id);
    expect(replicas.length, `replicas of ${master.pod}`).to.equal(desired.replicasPerMaster);
    for (const r of replicas) {
      const mp = podOf(master.id);
      const rp = podOf(r.id);
      expect(rp?.nodeName, `${r.pod} beside its master ${master.pod}`).not.to.equal(mp?.nodeName);
      if (zones > 1) expect(rp?.zone, `${r.pod} in its master's zone`).not.to.equal(mp?.zone);
    }
  }
  return topology;
}

/** How often a manual failover is asked again: Redis abandons one not done within its own 5 s. */
const MANUAL_FAILOVER_RETRY_MS = 6_000;

/**
 * A coordinated failover (CLUSTER FAILOVER) onto the replicas on `pods`, until each is a
 * master every node sees as one, with the cluster ok unless `clusterOk: false` (an old master
 * left with an open slot can report fail until the engine heals it). On a loaded machine a manual failover
 * can miss Redis' 5 s and be dropped silently, so it is asked again until it takes.
 */
export async function failOverTo(
  pool: NodePool,
  desired: DesiredCluster,
  pods: string[],
  { clusterOk = true }: { clusterOk?: boolean } = {},
): Promise<void> {
  const asked = new Map<string, number>();
  await waitFor(
    async () => {
      const t = await observe(desired.pods, pool);
      for (const view of t.views) {
        const stale = Date.now() - (asked.get(view.pod) ?? 0) > MANUAL_FAILOVER_RETRY_MS;
        if (myselfOf(view).role === 'replica' && pods.includes(view.pod) && stale) {
          asked.set(view.pod, Date.now());
          await command(pool, view.address, 'FAILOVER', ['CLUSTER', 'FAILOVER']);
        }
      }
      const ids = t.views.filter((v) => pods.includes(v.pod)).map((v) => v.id);
      return (
        ids.length === pods.length &&
        t.views.every(
          (v) =>
            (!clusterOk || v.info.state === 'ok') &&
            ids.every((id) => v.entries.some((e) => e.id === id && e.role === 'master')),
        )
      );
    },
    { what: `${pods.join(', ')} master in every view`, timeout: 180_000 },
  );
}
