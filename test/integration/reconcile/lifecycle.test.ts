import { expect } from 'chai';
import { Cluster } from 'ioredis';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';

describe('reconcile (on the local Kubernetes)', function () {
  this.timeout(600_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;

  before(async () => {
    api = await installApi(`knredis-reconcile-${process.pid}`);
    drive = driver(api);
    ns = await api.namespace(`rc-life-${process.pid}`);
  });
  after(async () => { await api?.stop(); });

  const apply = (manifest: object) => api.env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });

  it('forms a 3x1 cluster when a RedisCluster is created: Ready, 16384 slots, replicas on other nodes', async () => {
    await apply({ apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { name: 'alpha', namespace: ns }, spec: { masters: 3, replicasPerMaster: 1 } });
    const rc = await drive.until(`${ns}/alpha`, 'alpha Ready', isReady, 240_000);
    expect(rc?.status?.slotsCovered).to.equal(16384);
    expect(rc?.status?.shards).to.have.length(3);
    const pods = JSON.parse(await api.env.kubectl(['get', 'pods', '-n', ns, '-o', 'json'])) as { items: { metadata: { name: string }; spec: { nodeName: string } }[] };
    const nodeOf = new Map(pods.items.map((p) => [p.metadata.name, p.spec.nodeName]));
    for (const shard of rc?.status?.shards ?? []) {
      expect(shard.replicas).to.have.length(1);
      for (const r of shard.replicas ?? []) expect(nodeOf.get(r.pod), `${r.pod} beside its master ${shard.master?.pod}`).to.not.equal(nodeOf.get(shard.master?.pod ?? ''));
    }
  });

  it('serves keys through a cluster client when Ready', async () => {
    const rc = await drive.get(ns, 'alpha');
    const secret = JSON.parse(await api.env.kubectl(['get', 'secret', 'alpha-auth', '-n', ns, '-o', 'json'])) as { data: { password: string } };
    const password = Buffer.from(secret.data.password, 'base64').toString();
    const first = rc?.status?.shards?.[0]?.master?.ip ?? '';
    const client = new Cluster([{ host: first, port: 6379 }], { redisOptions: { password } });
    try {
      for (let i = 0; i < 200; i++) await client.set(`k${i}`, `v${i}`);
      for (let i = 0; i < 200; i++) expect(await client.get(`k${i}`)).to.equal(`v${i}`);
    } finally {
      client.disconnect();
    }
  });

  it('makes no write at all when a Ready cluster is reconciled again', async () => {
    drive.writes.length = 0;
    await drive.once(`${ns}/alpha`);
    await drive.once(`${ns}/alpha`);
    expect(drive.writes).to.deep.equal([]);
  });

  it('removes everything it created when the RedisCluster is deleted, keeping PVCs by default', async () => {
    await api.env.kubectl(['delete', 'rediscluster', 'alpha', '-n', ns, '--wait=false']);
    await drive.until(`${ns}/alpha`, 'alpha gone', (rc) => rc === undefined, 60_000);
    await api.env.waitFor(async () => {
      const out = await api.env.kubectl(['get', 'statefulsets,pods,services,configmaps,poddisruptionbudgets', '-n', ns, '-l', 'app.kubernetes.io/instance=alpha', '-o', 'name']);
      return out.trim() === '' ? true : undefined;
    }, { timeout: 90_000, what: 'children of alpha garbage-collected' });
    const claims = await api.env.kubectl(['get', 'pvc', '-n', ns, '-o', 'name']);
    expect(claims.trim().split('\n')).to.have.length(6);
  });
});
