// What the dashboard tests run: a real redis-server, the reconcile queue on it, a real queue
// worker running the given reconcile, and the dashboard router on an HTTP server (with the
// queue gauges on /metrics). close() stops all of it and empties the queue.
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import { dashboardRouter } from '../../../functions/dashboard/app.ts';
import { createHttpApp } from '../../../shared/io/express-app.ts';
import { listen, type Listening } from '../../../shared/io/http.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { createRegistry, registerQueueGauges } from '../../../shared/io/metrics.ts';
import { producerConnection } from '../../../shared/io/queue/connection.ts';
import type { QueueNames } from '../../../shared/io/queue/keys.ts';
import {
  startQueueWorker,
  type QueueWorker,
  type QueueWorkerSettings,
  type Reconcile,
} from '../../../shared/io/queue/queue-worker.ts';
import { createReconcileQueue, type ReconcileQueue } from '../../../shared/io/queue/reconcile-queue.ts';
import { runLog, type RunLog } from '../../../shared/io/queue/run-log.ts';

export interface DashboardStack {
  readonly queue: ReconcileQueue;
  readonly runs: RunLog;
  readonly server: Listening;
  close(): Promise<void>;
}

export async function startDashboardStack(options: {
  names: QueueNames;
  token: string;
  reconcile: Reconcile;
  settings: QueueWorkerSettings;
}): Promise<DashboardStack> {
  const { names, token } = options;
  const redis: RedisServer = await startRedis();
  const connection = producerConnection(redis.url);
  const queue = createReconcileQueue({ connection, names });
  const worker: QueueWorker = startQueueWorker({
    redis: redis.url,
    names,
    reconcile: options.reconcile,
    settings: options.settings,
    log: createLogger({ level: 'silent' }),
  });
  const registry = createRegistry({ defaultMetrics: false });
  registerQueueGauges(registry, names.queue, () => queue.bull.getJobCounts());
  const app = createHttpApp({ registry });
  app.use(dashboardRouter({ queue: queue.bull, redis: connection, names, readOnly: true, token }));
  const server = await listen(app, 0);
  return {
    queue,
    server,
    runs: runLog(connection, names),
    async close() {
      await server.close();
      await worker.close();
      await queue.bull.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await redis.stop();
    },
  };
}
