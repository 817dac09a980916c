// What a user would check on a running cluster, for the engine's integration tests.
import { expect } from 'chai';
import type { NodePool } from '../../../shared/io/redis/connection.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import type { DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { myselfOf, type Topology } from '../../../shared/core/cluster/topology.ts';
import { countSlots } from '../../../shared/core/cluster/slots.ts';

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
