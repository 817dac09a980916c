// The reconcile worker: the queue worker running the injected reconcile, plus the periodic
// resync. The real reconcile (observe -> plan -> apply) plugs in through `reconcile`.
import type { Logger } from '../../shared/io/log.ts';
import { queueMetrics, type Registry } from '../../shared/io/metrics.ts';
import { workerConnection, type QueueRedisTarget } from '../../shared/io/queue/connection.ts';
import type { QueueNames } from '../../shared/io/queue/keys.ts';
import { createReconcileQueue, type ReconcileQueue } from '../../shared/io/queue/reconcile-queue.ts';
import { startQueueWorker, type QueueWorkerSettings, type Reconcile } from '../../shared/io/queue/queue-worker.ts';
import { resyncHandler, scheduleResync, type ListKeys, type ResyncSettings } from '../../shared/io/queue/resync.ts';
import { resyncJobName } from '../../shared/io/queue/job-options.ts';

export type { Reconcile, ReconcileContext } from '../../shared/io/queue/queue-worker.ts';

export interface WorkerOptions {
  readonly reconcile: Reconcile;
  /** Lists every RedisCluster key for the resync (the real one reads the API server). */
  readonly listKeys: ListKeys;
  /** The queue's Redis. */
  readonly redis: QueueRedisTarget;
  readonly names: QueueNames;
  readonly settings: QueueWorkerSettings;
  /** No periodic resync when undefined (tests). */
  readonly resync?: ResyncSettings;
  readonly log: Logger;
  readonly registry?: Registry;
  readonly random?: () => number;
}

export interface RunningWorker {
  readonly queue: ReconcileQueue;
  /** Drains: stops taking jobs, waits for the runs in flight, closes connections. */
  close(): Promise<void>;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { names, log, resync } = options;
  const metrics = options.registry ? queueMetrics(options.registry) : undefined;
  const queue = createReconcileQueue({
    connection: workerConnection(options.redis),
    names,
    onAdd: () => metrics?.adds.inc({ name: names.queue }),
  });
  const handlers: Record<string, () => Promise<void>> = {};
  if (resync) handlers[resyncJobName] = resyncHandler(queue, options.listKeys, resync, log, options.random);
  if (resync) await scheduleResync(queue, resync);
  const worker = startQueueWorker({
    redis: options.redis,
    names,
    reconcile: options.reconcile,
    settings: options.settings,
    log,
    handlers,
    ...(metrics ? { metrics } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
  log.info({ queue: names.queue, concurrency: options.settings.concurrency }, 'reconcile worker started');
  return {
    queue,
    async close() {
      await worker.close();
      await queue.close();
      log.info('reconcile worker drained');
    },
  };
}
