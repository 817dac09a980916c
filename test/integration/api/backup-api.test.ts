// The backup API on the real API server: a RedisClusterBackup as kubectl sees it (short name,
// printer columns, an immutable spec, schema refusals), and RedisCluster's spec.backup and
// spec.restore as the webhook judges them (a real cron expression; restore at creation only).
import { expect } from 'chai';
import { installApi, type InstalledApi } from './api-fixture.ts';

const storage = { s3: { bucket: 'backups', credentialsSecretRef: { name: 's3-keys' } } };

describe('RedisClusterBackup API and spec.backup / spec.restore on the API server', function () {
  this.timeout(120_000);
  let api: InstalledApi;
  let ns: string;

  before(async function () {
    this.timeout(300_000);
    api = await installApi(`knredis-backup-api-${process.pid}`);
    ns = await api.namespace(`backup-api-${process.pid}`);
  });
  after(async () => {
    await api?.stop();
  });

  const kubectl = (args: string[], input?: object) =>
    api.env.kubectl(['-n', ns, ...args], input === undefined ? {} : { input: JSON.stringify(input) });
  async function refusal(args: string[], input?: object): Promise<string> {
    try {
      await kubectl(args, input);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded; a refusal was expected`);
  }
  const backup = (name: string, spec: object) => ({
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisClusterBackup',
    metadata: { name },
    spec,
  });
  const cluster = (name: string, spec: object) => ({
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisCluster',
    metadata: { name },
    spec,
  });

  it('takes a backup by its short name rcb, shows its columns, and refuses changing its spec', async () => {
    await kubectl(['apply', '-f', '-'], backup('b1', { clusterName: 'cache', storage }));
    const [header] = (await kubectl(['get', 'rcb'])).trim().split('\n');
    expect(header!.split(/\s+/)).to.deep.equal(['NAME', 'CLUSTER', 'PHASE', 'COMPLETED', 'AGE']);
    const message = await refusal(['apply', '-f', '-'], backup('b1', { clusterName: 'other', storage }));
    expect(message).to.contain('spec cannot change: a backup is taken once; create another RedisClusterBackup instead');
  });

  it('refuses a backup without a bucket or credentials, or with an endpoint that is not a URL', async () => {
    expect(
      await refusal(['apply', '-f', '-'], backup('b2', { clusterName: 'cache', storage: { s3: { bucket: 'x' } } })),
    ).to.contain('spec.storage.s3.credentialsSecretRef: Required value');
    const endpoint = { s3: { ...storage.s3, endpoint: 'minio:9000' } };
    expect(await refusal(['apply', '-f', '-'], backup('b3', { clusterName: 'cache', storage: endpoint }))).to.contain(
      'must be an http:// or https:// URL',
    );
  });

  it('refuses a schedule that is not a cron expression, and keep below 1', async () => {
    expect(
      await refusal(['apply', '-f', '-'], cluster('c1', { backup: { schedule: '0 25 * * *', storage } })),
    ).to.contain('spec.backup.schedule: the hour field "25" must stay within 0-23');
    expect(await refusal(['apply', '-f', '-'], cluster('c1', { backup: { schedule: 'daily', storage } }))).to.contain(
      'must be a 5-field cron expression',
    );
    expect(
      await refusal(['apply', '-f', '-'], cluster('c1', { backup: { schedule: '0 3 * * *', keep: 0, storage } })),
    ).to.contain('spec.backup.keep');
    await kubectl(['apply', '-f', '-'], cluster('c1', { backup: { schedule: '0 3 * * *', storage } }));
    expect(JSON.parse(await kubectl(['get', 'rediscluster', 'c1', '-o', 'json'])).spec.backup.keep).to.equal(7);
  });

  it('takes spec.restore at creation only', async () => {
    await kubectl(['apply', '-f', '-'], cluster('c2', { restore: { backupName: 'b1' } }));
    expect(await refusal(['apply', '-f', '-'], cluster('c2', { restore: { backupName: 'b9' } }))).to.contain(
      'spec.restore cannot change or be removed after creation',
    );
    expect(await refusal(['apply', '-f', '-'], cluster('c1', { restore: { backupName: 'b1' } }))).to.contain(
      'spec.restore cannot be added to an existing RedisCluster',
    );
  });
});
