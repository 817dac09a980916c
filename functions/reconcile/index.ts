// Wiring of the reconcile function: the queue worker and the resync, running the reconciler.
//
// The seam: the reconciler lives in ./reconcile.ts and exports
//   createReconcile(deps: ReconcileDeps): Reconcile
// where Reconcile = (key: "namespace/name", { signal, log, reconcileId, failures }) =>
// Promise<Outcome> (shared/core/outcome.ts: done | awaitChange | requeueAfter(ms); throw
// TerminalError for no retry, anything else is retried with backoff). Tests and other
// callers pass `reconcile` to startWorker directly.
import type { KubeConfig } from '@kubernetes/client-node';
import type { StartFunction } from '../function-context.ts';
import { required, type Config } from '../start-config.ts';
import { kubeListClusterKeys, loadKubeConfig } from '../kube.ts';
import type { Logger } from '../../shared/io/log.ts';
import { startWorker, type Reconcile } from './worker.ts';

export interface ReconcileDeps {
  readonly config: Config;
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
}

export type CreateReconcile = (deps: ReconcileDeps) => Reconcile;

const reconcilerModule = './reconcile.ts';

async function loadReconciler(): Promise<CreateReconcile> {
  let module: { createReconcile?: CreateReconcile };
  try {
    module = (await import(reconcilerModule)) as { createReconcile?: CreateReconcile };
  } catch (error) {
    throw new Error(`the reconciler (functions/reconcile/reconcile.ts exporting createReconcile) could not be loaded: ${(error as Error).message}`, { cause: error });
  }
  if (typeof module.createReconcile !== 'function') throw new Error('functions/reconcile/reconcile.ts does not export createReconcile');
  return module.createReconcile;
}

export const start: StartFunction = async ({ config, log, registry }) => {
  const redisUrl = required(config.redisUrl, 'REDIS_URL', 'reconcile');
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const workerLog = log;
  const reconcile = (await loadReconciler())({ config, kubeConfig, log: workerLog });
  const worker = await startWorker({
    reconcile, listKeys: kubeListClusterKeys(kubeConfig), redisUrl,
    names: { prefix: config.queue.prefix, queue: config.queue.name },
    settings: config.worker, resync: config.resync, log: workerLog, registry,
  });
  return { close: () => worker.close() };
};
