// What a test needs to reach a RedisCluster's nodes directly (the password from its Secret,
// the placements of its running pods), and a Ready cluster with data under client load.
import type { ConnectionOptions } from 'node:tls';
import type { PodPlacement } from '../../../shared/core/cluster/desired.ts';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import type { InstalledApi } from '../api/api-fixture.ts';
import { bulkLoad, ClientLoad } from '../cluster/client-load.ts';
import { isReady, type Driver } from './harness.ts';

export async function clusterPassword(api: InstalledApi, namespace: string, name: string): Promise<string> {
  const secret = JSON.parse(
    await api.env.kubectl(['get', 'secret', `${name}-auth`, '-n', namespace, '-o', 'json']),
  ) as { data: { password: string } };
  return Buffer.from(secret.data.password, 'base64').toString();
}

export async function podPlacements(api: InstalledApi, namespace: string): Promise<PodPlacement[]> {
  const pods = JSON.parse(await api.env.kubectl(['get', 'pods', '-n', namespace, '-o', 'json'])) as {
    items: {
      metadata: { name: string; deletionTimestamp?: string };
      spec: { nodeName?: string };
      status: { podIP?: string };
    }[];
  };
  return pods.items
    .filter((p) => p.status.podIP && !p.metadata.deletionTimestamp)
    .map((p) => ({
      name: p.metadata.name,
      address: { ip: p.status.podIP as string, port: 6379 },
      nodeName: p.spec.nodeName ?? '',
    }));
}

export interface LoadedCluster {
  readonly password: string;
  readonly load: ClientLoad;
  /** Stops the client, deletes the RedisCluster through its finalizer, removes the API. */
  close(): Promise<void>;
}

/**
 * A RedisCluster made Ready by the driver, `keys` keys `<prefix>:<i>` written to it, and a
 * client writing and reading continuously (ClientLoad) that the test can stop and check.
 */
export async function loadedCluster(
  api: InstalledApi,
  drive: Driver,
  options: {
    namespace: string;
    name: string;
    spec: object;
    ready?: (rc: RedisCluster | undefined) => boolean;
    keys: number;
    prefix: string;
    workers: number;
    /** spec.tls: how the test's clients connect (the Secret's CA and a name its certificate holds). */
    tls?: ConnectionOptions;
  },
): Promise<LoadedCluster> {
  const { namespace, name } = options;
  await api.env.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name, namespace },
      spec: options.spec,
    }),
  });
  const rc = await drive.until(`${namespace}/${name}`, `${name} Ready`, options.ready ?? isReady, 240_000);
  const password = await clusterPassword(api, namespace, name);
  const pool = new NodePool({ auth: { password }, ...(options.tls ? { tls: options.tls } : {}) });
  try {
    await bulkLoad(
      await observe(await podPlacements(api, namespace), pool),
      options.prefix,
      options.keys,
      password,
      options.tls,
    );
  } finally {
    await pool.close();
  }
  const load = new ClientLoad(
    (rc?.status?.shards ?? []).map((s) => ({ ip: s.master?.ip ?? '', port: 6379 })),
    options.prefix,
    options.keys,
    password,
    undefined,
    options.tls,
  );
  load.start(options.workers);
  return {
    password,
    load,
    async close() {
      await load.stop();
      await load.close();
      await drive.remove(namespace, name);
    },
  };
}
