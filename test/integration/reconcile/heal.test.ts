import { expect } from 'chai';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';
import { loadedCluster, type LoadedCluster } from './pods.ts';

/** Ready, 3 shards each with a linked replica on another node, all 6 pods Ready. */
function fullShape(rc: RedisCluster | undefined): boolean {
  return (
    isReady(rc) &&
    rc?.status?.readyNodes === 6 &&
    rc.status.shards?.length === 3 &&
    rc.status.shards.every((s) => s.replicas?.length === 1 && s.replicas[0]?.ready)
  );
}

describe('reconcile: healing after pod and node failures (on the local Kubernetes)', function () {
  this.timeout(900_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;
  let cluster: LoadedCluster | undefined;
  const key = () => `${ns}/healy`;
  const podsJson = async () =>
    JSON.parse(await api.env.kubectl(['get', 'pods', '-n', ns, '-o', 'json'])) as {
      items: { metadata: { name: string; uid: string }; spec: { nodeName: string } }[];
    };

  before(async () => {
    api = await installApi(`knredis-heal-${process.pid}`);
    drive = driver(api);
    ns = await api.namespace(`rc-heal-${process.pid}`);
    cluster = await loadedCluster(api, drive, {
      namespace: ns,
      name: 'healy',
      spec: { masters: 3, replicasPerMaster: 1, storage: { reclaim: 'Delete' } },
      ready: fullShape,
      keys: 5_000,
      prefix: 'h',
      workers: 2,
    });
  });
  after(async () => {
    await cluster?.close();
    await api?.stop();
  });

  it('heals back to full shape when a master pod is deleted, and the cluster keeps serving', async () => {
    const rc = await drive.get(ns, 'healy');
    const master = rc?.status?.shards?.[1]?.master?.pod ?? '';
    const uid = (await podsJson()).items.find((p) => p.metadata.name === master)?.metadata.uid;
    await api.env.kubectl(['delete', 'pod', master, '-n', ns, '--wait=false']);
    await drive.until(
      key(),
      'healy back to full shape',
      (now) =>
        fullShape(now) &&
        now?.status?.shards?.some((s) => s.master?.pod === master || s.replicas?.some((r) => r.pod === master)) ===
          true,
      300_000,
    );
    expect((await podsJson()).items.find((p) => p.metadata.name === master)?.metadata.uid).to.not.equal(uid);
    const report = await cluster?.load.stop();
    expect(report?.ops).to.be.greaterThan(0);
    expect(await cluster?.load.verify()).to.deep.equal([]);
    cluster?.load.start(2);
  });

  it('heals back to full shape, pods on other nodes, when a whole node fails', async () => {
    const pods = await podsJson();
    const victim = pods.items[0]?.spec.nodeName ?? '';
    const lost = pods.items.filter((p) => p.spec.nodeName === victim).map((p) => p.metadata.name);
    await api.env.kubelet.failNode(victim);
    try {
      await drive.until(key(), `healy back to full shape without ${victim}`, fullShape, 400_000);
      const now = await podsJson();
      for (const name of lost)
        expect(now.items.find((p) => p.metadata.name === name)?.spec.nodeName, name).to.not.equal(victim);
      const report = await cluster?.load.stop();
      expect(report?.ops).to.be.greaterThan(0);
      expect(await cluster?.load.verify()).to.deep.equal([]);
    } finally {
      await api.env.kubelet.restoreNode(victim);
    }
  });
});
