import { expect } from 'chai';
import { Cluster, Redis } from 'ioredis';
import { MONITOR_USER } from '../../../shared/core/resources/monitor-user.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';
import { clusterPassword, podPlacements } from './pods.ts';

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
  after(async () => {
    await api?.stop();
  });

  const apply = (manifest: object) => api.env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });

  it('forms a 3x1 cluster when a RedisCluster is created: Ready, 16384 slots, replicas on other nodes', async () => {
    await apply({
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name: 'alpha', namespace: ns },
      spec: { masters: 3, replicasPerMaster: 1 },
    });
    const rc = await drive.until(`${ns}/alpha`, 'alpha Ready', isReady, 240_000);
    expect(rc?.status?.slotsCovered).to.equal(16384);
    expect(rc?.status?.shards).to.have.length(3);
    const pods = JSON.parse(await api.env.kubectl(['get', 'pods', '-n', ns, '-o', 'json'])) as {
      items: { metadata: { name: string }; spec: { nodeName: string } }[];
    };
    const nodeOf = new Map(pods.items.map((p) => [p.metadata.name, p.spec.nodeName]));
    for (const shard of rc?.status?.shards ?? []) {
      expect(shard.replicas).to.have.length(1);
      for (const r of shard.replicas ?? [])
        expect(nodeOf.get(r.pod), `${r.pod} beside its master ${shard.master?.pod}`).to.not.equal(
          nodeOf.get(shard.master?.pod ?? ''),
        );
    }
  });

  it('serves keys through a cluster client when Ready', async () => {
    const rc = await drive.get(ns, 'alpha');
    const secret = JSON.parse(await api.env.kubectl(['get', 'secret', 'alpha-auth', '-n', ns, '-o', 'json'])) as {
      data: { password: string };
    };
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

  // The cluster's password, and the monitoring user's (the exporter's login).
  for (const name of ['alpha-auth', 'alpha-monitor'])
    it(`never puts the password of ${name} in an Event, the status or a log line`, async () => {
      const secret = JSON.parse(await api.env.kubectl(['get', 'secret', name, '-n', ns, '-o', 'json'])) as {
        data: { password: string };
      };
      const password = Buffer.from(secret.data.password, 'base64').toString();
      const events = await api.env.kubectl(['get', 'events', '-n', ns, '-o', 'json']);
      const status = JSON.stringify((await drive.get(ns, 'alpha'))?.status);
      expect(JSON.parse(events).items.length).to.be.greaterThan(0);
      for (const [what, text] of [
        ['events', events],
        ['status', status],
        ['logs', drive.logLines.join('')],
      ] as const) {
        expect(text.includes(password), `password found in ${what}`).to.equal(false);
        expect(text.includes(secret.data.password), `encoded password found in ${what}`).to.equal(false);
      }
    });

  it('changes nothing while paused, and applies the change once unpaused', async () => {
    await api.env.kubectl([
      'patch',
      'rediscluster',
      'alpha',
      '-n',
      ns,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { paused: true } }),
    ]);
    await drive.until(`${ns}/alpha`, 'alpha Paused', (rc) => rc?.status?.phase === 'Paused');
    const before = await api.env.kubectl([
      'get',
      'statefulset',
      'alpha',
      '-n',
      ns,
      '-o',
      'jsonpath={.metadata.generation}',
    ]);
    await api.env.kubectl([
      'patch',
      'rediscluster',
      'alpha',
      '-n',
      ns,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { config: { databases: '4' } } }),
    ]);
    drive.writes.length = 0;
    await drive.once(`${ns}/alpha`);
    expect(drive.writes.map((w) => w.resource)).to.deep.equal(['redisclusters/status']);
    expect(
      await api.env.kubectl(['get', 'statefulset', 'alpha', '-n', ns, '-o', 'jsonpath={.metadata.generation}']),
    ).to.equal(before);
    await api.env.kubectl([
      'patch',
      'rediscluster',
      'alpha',
      '-n',
      ns,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { paused: false } }),
    ]);
    await drive.until(`${ns}/alpha`, 'alpha rolled and Ready', (rc) => isReady(rc) && !rc?.status?.operation, 300_000);
    expect(
      await api.env.kubectl(['get', 'statefulset', 'alpha', '-n', ns, '-o', 'jsonpath={.metadata.generation}']),
    ).to.not.equal(before);
  });

  it('makes no write at all when a Ready cluster is reconciled again', async () => {
    drive.writes.length = 0;
    await drive.once(`${ns}/alpha`);
    await drive.once(`${ns}/alpha`);
    expect(drive.writes).to.deep.equal([]);
  });

  it('sets the monitoring user again on a node that lacks it (a pod started before it existed), and says so', async () => {
    const [pod] = await podPlacements(api, ns);
    const node = new Redis({ host: pod!.address.ip, port: 6379, password: await clusterPassword(api, ns, 'alpha') });
    try {
      expect(await node.call('ACL', 'DELUSER', MONITOR_USER)).to.equal(1);
      await drive.once(`${ns}/alpha`);
      expect(await node.call('ACL', 'GETUSER', MONITOR_USER)).to.not.equal(null);
    } finally {
      node.disconnect();
    }
    const events = await api.env.kubectl(['get', 'events', '-n', ns, '-o', 'json']);
    expect(events).to.contain('set the monitoring user knredis-monitor on 1 node(s)');
  });

  it('uses the password of a Secret the spec names', async () => {
    await api.env.kubectl([
      'create',
      'secret',
      'generic',
      'bring-your-own',
      '-n',
      ns,
      '--from-literal=pw=correct-horse-battery',
    ]);
    await apply({
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name: 'byo', namespace: ns },
      spec: {
        masters: 3,
        replicasPerMaster: 0,
        auth: { secretRef: { name: 'bring-your-own', key: 'pw' } },
        storage: { reclaim: 'Delete' },
      },
    });
    const rc = await drive.until(`${ns}/byo`, 'byo Ready', isReady, 240_000);
    const client = new Cluster([{ host: rc?.status?.shards?.[0]?.master?.ip ?? '', port: 6379 }], {
      redisOptions: { password: 'correct-horse-battery' },
    });
    try {
      await client.set('hello', 'world');
      expect(await client.get('hello')).to.equal('world');
    } finally {
      client.disconnect();
    }
    // no generated Secret (the operator's record of the password in force, byo-auth-active, is not one)
    const secrets = (await api.env.kubectl(['get', 'secret', '-n', ns, '-o', 'name'])).trim().split('\n');
    expect(secrets).to.not.include('secret/byo-auth');
    await drive.remove(ns, 'byo');
    expect(await api.env.kubectl(['get', 'secret', 'bring-your-own', '-n', ns, '-o', 'name'])).to.contain(
      'bring-your-own',
    );
  });

  it('removes everything it created when the RedisCluster is deleted, keeping PVCs by default', async () => {
    await api.env.kubectl(['delete', 'rediscluster', 'alpha', '-n', ns, '--wait=false']);
    await drive.until(`${ns}/alpha`, 'alpha gone', (rc) => rc === undefined, 60_000);
    await api.env.waitFor(
      async () => {
        const out = await api.env.kubectl([
          'get',
          'statefulsets,pods,services,configmaps,poddisruptionbudgets',
          '-n',
          ns,
          '-l',
          'app.kubernetes.io/instance=alpha',
          '-o',
          'name',
        ]);
        return out.trim() === '' ? true : undefined;
      },
      { timeout: 90_000, what: 'children of alpha garbage-collected' },
    );
    const claims = await api.env.kubectl(['get', 'pvc', '-n', ns, '-o', 'name']);
    expect(claims.trim().split('\n')).to.have.length(6);
  });
});
