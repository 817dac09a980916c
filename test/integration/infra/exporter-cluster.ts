// The operator stack and a Ready 3-master RedisCluster with the exporter sidecar on (the local
// kubelet runs redis_exporter), in a namespace of its own: what the exporter tests scrape.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOperatorStack, type OperatorStack } from '../../../infra/local/operator-stack.ts';
import { ClusterView, isReady, stopStackAfterClusters } from '../../e2e/observe.ts';
import type { LocalEnvironment } from '../../support/local-env.ts';

/** What was started so far, for stopExporterCluster (also after a failed start). */
export interface Started {
  ns?: string;
  dir?: string;
  stack?: OperatorStack;
}

/** `test` names the namespace, the stack's directory and its webhook configuration (with the pid). */
export async function exporterCluster(
  env: LocalEnvironment,
  test: string,
  name: string,
  started: Started,
): Promise<ClusterView> {
  const ns = (started.ns = `${test}-${process.pid}`);
  await env.kubectl(['create', 'namespace', ns]);
  const dir = (started.dir = await mkdtemp(join(tmpdir(), `knredis-${test}-`)));
  started.stack = await startOperatorStack({
    kubeconfig: env.kubeconfigPath,
    kubectl: env.kubectlPath,
    dir,
    workers: 1,
    webhookConfigurationName: `knredis-${test}-${process.pid}`,
  });
  const view = new ClusterView(env, ns, name);
  await env.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name, namespace: ns },
      spec: { masters: 3, replicasPerMaster: 0, storage: { reclaim: 'Delete' }, exporter: { enabled: true } },
    }),
  });
  await view.until('Ready', isReady);
  return view;
}

/** Stops the stack once the RedisClusters are gone, then deletes the namespace and the directory. */
export async function stopExporterCluster(env: LocalEnvironment, started: Started): Promise<void> {
  if (started.stack && started.ns) await stopStackAfterClusters(env, started.ns, started.stack);
  if (started.ns) await env.kubectl(['delete', 'namespace', started.ns, '--wait=false']).catch(() => {});
  if (started.dir) await rm(started.dir, { recursive: true, force: true });
}
