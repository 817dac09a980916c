// The set-up the e2e files that run the operator stack share: the local environment, a
// namespace of the test's own, the functions as separate processes (the resync an hour away,
// so a change must come by its own event) and a view of one RedisCluster; and the teardown
// that deletes the cluster before it stops the operator, so its finalizer is run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { startOperatorStack, type OperatorStack } from '../../infra/local/operator-stack.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { bulkLoad, ClientLoad } from '../integration/cluster/client-load.ts';
import { localEnvironment, type LocalEnvironment } from '../support/local-env.ts';
import { ClusterView, isReady } from './observe.ts';

export interface LoadOptions {
  /** Spec fields beside a 3x1 cluster of Redis 7.0 whose volumes go with it. */
  readonly spec?: Record<string, unknown>;
  readonly prefix: string;
  readonly keys: number;
  /** The password clients use; by default the generated Secret's. */
  readonly password?: string;
  readonly tls?: ConnectionOptions;
}

export interface StackFixture {
  readonly env: LocalEnvironment;
  readonly ns: string;
  readonly stack: OperatorStack;
  readonly view: ClusterView;
  /** Applies the RedisCluster: a 3x1 cluster of Redis 7.0 whose volumes go with it, `spec` over that. */
  create(spec?: Record<string, unknown>): Promise<void>;
  /** Creates the cluster, waits for Ready, writes `keys` keys, and starts a client load (4 workers) on them. */
  createLoaded(options: LoadOptions): Promise<ClientLoad>;
  stop(): Promise<void>;
}

export async function startStackFixture(what: string, cluster: string): Promise<StackFixture> {
  const env = await localEnvironment();
  const ns = `e2e-${what}-${process.pid}`;
  await env.kubectl(['create', 'namespace', ns]);
  const dir = await mkdtemp(join(tmpdir(), `knredis-e2e-${what}-`));
  let stack: OperatorStack;
  try {
    stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir,
      workers: 1,
      webhookConfigurationName: `knredis-e2e-${what}-${process.pid}`,
      extraEnv: { RESYNC_INTERVAL_MS: '3600000' },
    });
  } catch (error) {
    await env.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const view = new ClusterView(env, ns, cluster);
  const create = async (spec: Record<string, unknown> = {}) => {
    await env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: cluster, namespace: ns },
        spec: { masters: 3, replicasPerMaster: 1, version: '7.0', storage: { reclaim: 'Delete' }, ...spec },
      }),
    });
  };
  return {
    env,
    ns,
    stack,
    view,
    create,
    async createLoaded({ spec = {}, prefix, keys, password: given, tls }) {
      await create(spec);
      const rc = await view.until('Ready', isReady);
      const password = given ?? (await view.password());
      const pool = new NodePool({ auth: { password }, ...(tls ? { tls } : {}) });
      try {
        const pods = (await view.pods()).map((p) => ({
          name: p.name,
          address: { ip: p.ip, port: 6379 },
          nodeName: p.node,
        }));
        await bulkLoad(await observe(pods, pool), prefix, keys, password, tls);
      } finally {
        await pool.close();
      }
      const seeds = (rc?.status?.shards ?? []).map((s) => ({ ip: s.master?.ip ?? '', port: 6379 }));
      const load = new ClientLoad(seeds, prefix, keys, password, undefined, tls);
      load.start(4);
      return load;
    },
    async stop() {
      await env.kubectl(['delete', 'rediscluster', cluster, '-n', ns, '--wait=false']).catch(() => {});
      await env
        .waitFor(async () => (await view.get()) === undefined, { what: `${cluster} gone`, timeout: 120_000 })
        .catch(() => {});
      await stack.stop();
      await env.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
