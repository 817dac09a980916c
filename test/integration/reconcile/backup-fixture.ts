// What the backup and restore tests share: a SeaweedFS S3 server with the credentials Secret a
// backup names, a Ready 3x1 cluster loaded with keys (some with a TTL), and a driver loop that
// runs the cluster's passes until a backup has finished.
import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { RedisClusterBackup } from '../../../shared/core/api/backup-v1beta1.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { createS3Store, type ObjectStore } from '../../../shared/io/object-store.ts';
import type { S3Server } from '../../support/s3-server.ts';
import type { InstalledApi } from '../api/api-fixture.ts';
import { bulkLoad } from '../cluster/client-load.ts';
import { isReady, type Driver } from './harness.ts';
import { clusterPassword, podPlacements } from './pods.ts';

export const apply = (api: InstalledApi, manifest: object) =>
  api.env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });

/** A Secret of S3 keys, as a user writes it (accessKeyId, secretAccessKey). */
export async function s3Secret(api: InstalledApi, namespace: string, name: string, keys: object): Promise<void> {
  await apply(api, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, stringData: keys });
}

export function storageOf(server: S3Server, secret: string, bucket = server.bucket) {
  return { s3: { endpoint: server.endpoint, bucket, prefix: 'knredis', credentialsSecretRef: { name: secret } } };
}

export function storeOf(server: S3Server): ObjectStore {
  return createS3Store({ ...server, prefix: 'knredis' });
}

export async function createBackup(api: InstalledApi, namespace: string, name: string, spec: object): Promise<void> {
  await apply(api, {
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisClusterBackup',
    metadata: { name, namespace },
    spec,
  });
}

export async function getBackup(api: InstalledApi, namespace: string, name: string): Promise<RedisClusterBackup> {
  return JSON.parse(await api.env.kubectl(['get', 'rcb', name, '-n', namespace, '-o', 'json'])) as RedisClusterBackup;
}

/** Runs the cluster's passes until the backup is Completed or Failed. */
export async function untilFinished(
  api: InstalledApi,
  drive: Driver,
  namespace: string,
  cluster: string,
  backup: string,
  timeoutMs = 180_000,
): Promise<RedisClusterBackup> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await drive.once(`${namespace}/${cluster}`).catch(() => undefined);
    const b = await getBackup(api, namespace, backup);
    if (b.status?.phase === 'Completed' || b.status?.phase === 'Failed') return b;
    if (Date.now() > deadline) throw new Error(`backup ${backup} still ${b.status?.phase}: ${b.status?.message}`);
  }
}

export interface Loaded {
  readonly password: string;
  /** Every key written, with its value; `ttl:*` keys expire in an hour. */
  readonly keys: number;
  readonly withTtl: readonly string[];
}

/** A Ready cluster of `spec`, `keys` keys `k:<i>` and a few with a TTL. */
export async function readyLoadedCluster(
  api: InstalledApi,
  drive: Driver,
  namespace: string,
  name: string,
  keys: number,
): Promise<Loaded> {
  await apply(api, {
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisCluster',
    metadata: { name, namespace },
    spec: { masters: 3, replicasPerMaster: 1, storage: { reclaim: 'Delete' } },
  });
  await drive.until(`${namespace}/${name}`, `${name} Ready`, isReady, 300_000);
  const password = await clusterPassword(api, namespace, name);
  const pool = new NodePool({ auth: { password } });
  try {
    await bulkLoad(await observe(await podPlacements(api, namespace), pool), 'k', keys, password);
  } finally {
    await pool.close();
  }
  const withTtl = Array.from({ length: 20 }, (_, i) => `ttl:${i}:${randomBytes(2).toString('hex')}`);
  const client = await clusterClient(api, namespace, password, name);
  try {
    for (const key of withTtl) await client.set(key, 'soon', 'EX', 3600);
  } finally {
    client.disconnect();
  }
  return { password, keys: keys + withTtl.length, withTtl };
}

export async function clusterClient(
  api: InstalledApi,
  namespace: string,
  password: string,
  cluster?: string,
): Promise<Cluster> {
  const [first] = (await podPlacements(api, namespace)).filter((p) => !cluster || p.name.startsWith(`${cluster}-`));
  const client = new Cluster([{ host: first!.address.ip, port: 6379 }], { redisOptions: { password } });
  await client.ping();
  return client;
}
