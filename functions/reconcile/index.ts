// Wiring of the reconcile function: the queue worker and the resync, running the reconciler
// (./reconcile.ts: observe -> plan -> apply for one key).
import type { StartFunction } from '../function-context.ts';
import { required } from '../start-config.ts';
import { kubeListClusterKeys, loadKubeConfig } from '../kube.ts';
import { createReconcile } from './reconcile.ts';
import { startWorker } from './worker.ts';

/** How the worker's requests are told apart in the API server's audit log. */
export const RECONCILE_USER_AGENT = 'knredis-reconcile';

export const start: StartFunction = async ({ config, log, registry }) => {
  const redisUrl = required(config.redisUrl, 'REDIS_URL', 'reconcile');
  const kubeConfig = loadKubeConfig(config.kubeconfig, RECONCILE_USER_AGENT);
  const reconcile = createReconcile({ kubeConfig, log });
  const worker = await startWorker({
    reconcile,
    listKeys: kubeListClusterKeys(kubeConfig),
    redisUrl,
    names: { prefix: config.queue.prefix, queue: config.queue.name },
    settings: config.worker,
    resync: config.resync,
    log,
    registry,
  });
  return { close: () => worker.close() };
};
