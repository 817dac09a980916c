import { expect } from 'chai';
import { Redis } from 'ioredis';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { bulkLoad, ClientLoad } from '../cluster/client-load.ts';
import { driver, isReady, type Driver } from './harness.ts';
import { clusterPassword, podPlacements } from './pods.ts';

interface PodInfo { uid: string; restarts: number }

describe('reconcile: config changes and rolling updates (on the local Kubernetes)', function () {
  this.timeout(900_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;
  let password: string;
  let load: ClientLoad | undefined;
  const key = () => `${ns}/rolly`;

  const pods = async (): Promise<Map<string, PodInfo>> => {
    const list = JSON.parse(await api.env.kubectl(['get', 'pods', '-n', ns, '-o', 'json'])) as { items: { metadata: { name: string; uid: string }; status: { containerStatuses?: { restartCount: number }[] } }[] };
    return new Map(list.items.map((p) => [p.metadata.name, { uid: p.metadata.uid, restarts: p.status.containerStatuses?.[0]?.restartCount ?? 0 }]));
  };
  const patch = (spec: object) => api.env.kubectl(['patch', 'rediscluster', 'rolly', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec })]);
  const readyAgain = () => drive.until(key(), 'rolly Ready again', (rc) => isReady(rc) && !rc?.status?.operation, 600_000);

  before(async () => {
    api = await installApi(`knredis-rollout-${process.pid}`);
    drive = driver(api);
    ns = await api.namespace(`rc-roll-${process.pid}`);
    await api.env.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { name: 'rolly', namespace: ns }, spec: { masters: 3, replicasPerMaster: 1, version: '7.0', storage: { reclaim: 'Delete' } } }) });
    await drive.until(key(), 'rolly Ready', isReady, 240_000);
    password = await clusterPassword(api, ns, 'rolly');
    const pool = new NodePool({ auth: { password } });
    try {
      await bulkLoad(await observe(await podPlacements(api, ns), pool), 'r', 5_000, password);
    } finally {
      await pool.close();
    }
    const rc = await drive.get(ns, 'rolly');
    load = new ClientLoad([{ ip: rc?.status?.shards?.[0]?.master?.ip ?? '', port: 6379 }], 'r', 5_000, password);
    load.start(4);
  });
  after(async () => {
    await load?.stop();
    await load?.close();
    await drive?.remove(ns, 'rolly');
    await api?.stop();
  });

  it('applies a live-settable config change with CONFIG SET on every node, restarting no pod', async () => {
    const before = await pods();
    await patch({ config: { 'maxmemory-policy': 'allkeys-lru', 'slowlog-log-slower-than': '2000' } });
    await readyAgain();
    await drive.once(key());
    for (const pod of await podPlacements(api, ns)) {
      const node = new Redis({ host: pod.address.ip, port: 6379, password });
      try {
        expect(await node.config('GET', 'maxmemory-policy'), pod.name).to.deep.equal(['maxmemory-policy', 'allkeys-lru']);
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
    const sts = JSON.parse(await api.env.kubectl(['get', 'statefulset', 'rolly', '-n', ns, '-o', 'json'])) as { spec: { template: { spec: { containers: { image: string }[] } } } };
    expect(sts.spec.template.spec.containers[0]?.image).to.equal('redis:7.2');
    expect(rc?.status?.slotsCovered).to.equal(16384);
    const report = await load?.stop();
    expect(report?.errors, report?.samples.join('\n')).to.equal(0);
    expect(await load?.verify()).to.deep.equal([]);
  });
});
