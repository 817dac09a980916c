// Backup and restore end to end, with the operator running as separate processes
// (infra/local/operator-stack.ts) and a real S3 server (SeaweedFS): a RedisClusterBackup of a
// 3-master cluster taken while a client writes to it (reaching the operator by its own event:
// the resync is an hour away), the cluster deleted, and a new cluster of 4 masters created
// from the backup, Ready only with every key back, each with its value and its TTL.
import { expect } from 'chai';
import { Cluster } from 'ioredis';
import type { RedisClusterBackup } from '../../shared/core/api/backup-v1beta1.ts';
import type { ClientLoad } from '../integration/cluster/client-load.ts';
import type { LocalEnvironment } from '../support/local-env.ts';
import { startS3Server, type S3Server } from '../support/s3-server.ts';
import { ClusterView, isReady } from './observe.ts';
import { startStackFixture, type StackFixture } from './stack-fixture.ts';

const SOURCE = 'src';
const TARGET = 'dst';
const BACKUP = 'src-e2e';
/** Keys the client load rewrites while the backup runs. */
const LOADED = 2_000;
/** Keys written once before the backup, whose values must come back exactly. */
const FIXED = 3_000;
/** Of those, keys with a TTL (an hour). */
const WITH_TTL = 300;

describe('knredis end to end: backup, delete, restore into another master count (functions as separate processes)', function () {
  this.timeout(900_000);
  let fixture: StackFixture | undefined;
  let s3: S3Server | undefined;
  let env: LocalEnvironment;
  let ns: string;
  let load: ClientLoad | undefined;
  let password: string;

  const fixedKey = (i: number) => `fixed:{${i % 97}}:${i}`;
  const fixedValue = (i: number) => `value-${i}-${'x'.repeat(i % 50)}`;
  const clientOf = async (view: ClusterView) => {
    const [first] = await view.pods();
    const client = new Cluster([{ host: first!.ip, port: 6379 }], { redisOptions: { password } });
    await client.ping();
    return client;
  };
  const apply = (manifest: object) => env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
  const backup = async () =>
    JSON.parse(await env.kubectl(['get', 'rcb', BACKUP, '-n', ns, '-o', 'json'])) as RedisClusterBackup;

  before(async () => {
    s3 = await startS3Server();
    fixture = await startStackFixture('backup', SOURCE);
    ({ env, ns } = fixture);
    await apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's3-keys', namespace: ns },
      stringData: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
  });
  after(async function () {
    this.timeout(240_000);
    await load?.stop();
    await load?.close();
    await env?.kubectl(['delete', 'rediscluster', TARGET, '-n', ns, '--ignore-not-found', '--wait=false']);
    await fixture?.stop();
    await s3?.stop();
  });

  it('backs up a 3-master cluster under a client load with zero errors, and restores every key into 4 masters', async () => {
    load = await fixture!.createLoaded({ prefix: 'w', keys: LOADED });
    const source = fixture!.view;
    password = await source.password();
    const client = await clientOf(source);
    let held = 0;
    try {
      for (let i = 0; i < FIXED; i += 100)
        await Promise.all(
          Array.from({ length: Math.min(100, FIXED - i) }, (_, j) => {
            const n = i + j;
            return n < WITH_TTL
              ? client.set(fixedKey(n), fixedValue(n), 'EX', 3600)
              : client.set(fixedKey(n), fixedValue(n));
          }),
        );
      // The load's workers also write a pair of multi-key keys each: count what is there.
      for (const node of client.nodes('master')) held += Number(await node.dbsize());
    } finally {
      client.disconnect();
    }
    expect(held).to.be.at.least(LOADED + FIXED);

    await apply({
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisClusterBackup',
      metadata: { name: BACKUP, namespace: ns },
      spec: {
        clusterName: SOURCE,
        storage: {
          s3: {
            endpoint: s3!.endpoint,
            bucket: s3!.bucket,
            prefix: 'e2e',
            credentialsSecretRef: { name: 's3-keys' },
          },
        },
      },
    });
    await env.waitFor(async () => ['Completed', 'Failed'].includes((await backup()).status?.phase ?? ''), {
      what: `${BACKUP} finished`,
      timeout: 300_000,
    });
    const taken = await backup();
    expect(taken.status?.phase, taken.status?.message).to.equal('Completed');
    expect(taken.status?.shards).to.have.length(3);
    const stored = (taken.status?.shards ?? []).reduce((sum, s) => sum + s.keys, 0);
    expect(stored).to.equal(held);
    const report = await load.stop();
    expect(report.ops).to.be.greaterThan(0);
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    await load.close();
    load = undefined;

    await env.kubectl(['delete', 'rediscluster', SOURCE, '-n', ns, '--wait=false']);
    await env.waitFor(async () => (await source.get()) === undefined, { what: `${SOURCE} gone`, timeout: 180_000 });

    await apply({
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name: TARGET, namespace: ns },
      spec: {
        masters: 4,
        replicasPerMaster: 1,
        version: '7.0',
        storage: { reclaim: 'Delete' },
        restore: { backupName: BACKUP },
      },
    });
    const target = new ClusterView(env, ns, TARGET);
    const seen: string[] = [];
    const restored = await target.until(
      `${TARGET} Ready`,
      (rc) => {
        if (rc?.status?.restore) seen.push(`${isReady(rc)} ${JSON.stringify(rc.status.restore)}`);
        return isReady(rc);
      },
      600_000,
    );
    expect(restored?.status?.shards).to.have.length(4);
    expect(
      seen.some((s) => s.startsWith('false')),
      'restore progress seen before Ready',
    ).to.equal(true);
    // The new cluster has its own generated password, not the deleted cluster's.
    password = await target.password();

    const after = await clientOf(target);
    try {
      let keys = 0;
      for (const node of after.nodes('master')) keys += Number(await node.dbsize());
      expect(keys).to.equal(held);
      const wrong: string[] = [];
      for (let i = 0; i < FIXED; i++) {
        const [value, ttl] = await Promise.all([after.get(fixedKey(i)), after.ttl(fixedKey(i))]);
        if (value !== fixedValue(i)) wrong.push(`${fixedKey(i)}: ${value}`);
        if (i < WITH_TTL ? !(ttl > 3000 && ttl <= 3600) : ttl !== -1) wrong.push(`${fixedKey(i)}: ttl ${ttl}`);
      }
      expect(wrong.slice(0, 10), `${wrong.length} keys wrong`).to.deep.equal([]);
    } finally {
      after.disconnect();
    }
  });
});
