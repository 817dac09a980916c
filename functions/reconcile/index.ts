// Wiring of the reconcile function: the queue worker and the resync, running the reconciler
// (./reconcile.ts: observe -> plan -> apply for one key) over the watch-fed child cache.
import type { StartFunction } from '../function-context.ts';
import { QUEUE_REDIS_VARIABLES, required } from '../start-config.ts';
import { kubeListClusterKeys, loadKubeConfig } from '../kube.ts';
import { startChildCache } from '../../shared/io/kube/child-cache.ts';
import { createReconcile } from './reconcile.ts';
import { startWorker } from './worker.ts';

/** How the worker's requests are told apart in the API server's audit log. */
export const RECONCILE_USER_AGENT = 'knredis-reconcile';

export const start: StartFunction = async ({ config, log, registry }) => {
  const redis = required(config.queueRedis, QUEUE_REDIS_VARIABLES, 'reconcile');
  const kubeConfig = loadKubeConfig(config.kubeconfig, RECONCILE_USER_AGENT);
  // The queue is the worker's; the cache enqueues through it once both are up.
  let enqueue: (key: string) => void = () => {};
  const cache = startChildCache({
    kubeConfig,
    ...(config.watchNamespace ? { namespace: config.watchNamespace } : {}),
    onChange: (key) => enqueue(key),
    log,
  });
  const reconcile = createReconcile({
    kubeConfig,
    cache,
    operatorNamespace: config.operatorNamespace,
    ...(config.watchNamespace ? { watchNamespace: config.watchNamespace } : {}),
  });
  const worker = await startWorker({
    reconcile,
    listKeys: kubeListClusterKeys(kubeConfig, config.watchNamespace),
    redis,
    names: { prefix: config.queue.prefix, queue: config.queue.name },
    settings: config.worker,
    resync: config.resync,
    log,
    registry,
  });
  enqueue = (key) =>
    void worker.queue
      .enqueue(key)
      .catch((err: unknown) => log.warn({ err, key }, 'enqueue after a child change failed'));
  return {
    async close() {
      await worker.close();
      await cache.stop();
    },
  };
};
