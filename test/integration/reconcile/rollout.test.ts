import { expect } from 'chai';
import { Redis } from 'ioredis';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';
import { loadedCluster, podPlacements, type LoadedCluster } from './pods.ts';

interface PodInfo {
  uid: string;
  restarts: number;
}

describe('reconcile: config changes and rolling updates (on the local Kubernetes)', function () {
  this.timeout(900_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;
  let cluster: LoadedCluster | undefined;
  const key = () => `${ns}/rolly`;

  const pods = async (): Promise<Map<string, PodInfo>> => {
    const list = JSON.parse(await api.env.kubectl(['get', 'pods', '-n', ns, '-o', 'json'])) as {
      items: { metadata: { name: string; uid: string }; status: { containerStatuses?: { restartCount: number }[] } }[];
    };
    return new Map(
      list.items.map((p) => [
        p.metadata.name,
        { uid: p.metadata.uid, restarts: p.status.containerStatuses?.[0]?.restartCount ?? 0 },
      ]),
    );
  };
  const patch = (spec: object) =>
    api.env.kubectl(['patch', 'rediscluster', 'rolly', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec })]);
  const readyAgain = () =>
    drive.until(key(), 'rolly Ready again', (rc) => isReady(rc) && !rc?.status?.operation, 600_000);

  before(async () => {
    api = await installApi(`knredis-rollout-${process.pid}`);
    drive = driver(api);
    ns = await api.namespace(`rc-roll-${process.pid}`);
    cluster = await loadedCluster(api, drive, {
      namespace: ns,
      name: 'rolly',
      spec: { masters: 3, replicasPerMaster: 1, version: '7.0', storage: { reclaim: 'Delete' } },
      keys: 5_000,
      prefix: 'r',
      workers: 4,
    });
  });
  after(async () => {
    await cluster?.close();
    await api?.stop();
  });

  it('applies a live-settable config change with CONFIG SET on every node, restarting no pod', async () => {
    const before = await pods();
    await patch({ config: { 'maxmemory-policy': 'allkeys-lru', 'slowlog-log-slower-than': '2000' } });
    await readyAgain();
    await drive.once(key());
    for (const pod of await podPlacements(api, ns)) {
      const node = new Redis({ host: pod.address.ip, port: 6379, password: cluster?.password ?? '' });
      try {
        expect(await node.config('GET', 'maxmemory-policy'), pod.name).to.deep.equal([
          'maxmemory-policy',
          'allkeys-lru',
        ]);
      } finally {
        node.disconnect();
      }
    }
    expect(await pods()).to.deep.equal(before);
  });

  it('rolls a version change through every pod, masters after a planned failover, with no client error', async () => {
    const before = await pods();
    await patch({ version: '7.2' });
    const rc = await readyAgain();
    const after = await pods();
    for (const [name, info] of after) expect(info.uid, `${name} was not replaced`).to.not.equal(before.get(name)?.uid);
    const sts = JSON.parse(await api.env.kubectl(['get', 'statefulset', 'rolly', '-n', ns, '-o', 'json'])) as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    expect(sts.spec.template.spec.containers[0]?.image).to.equal('redis:7.2');
    expect(rc?.status?.slotsCovered).to.equal(16384);
    const report = await cluster?.load.stop();
    expect(report?.errors, report?.samples.join('\n')).to.equal(0);
    expect(await cluster?.load.verify()).to.deep.equal([]);
  });
});
