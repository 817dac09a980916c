// Wiring of the dashboard function: bull-board on the reconcile queue, and its job counts on
// /metrics (workqueue_depth, bullmq_jobs{state}).
import type { StartFunction } from '../function-context.ts';
import { required } from '../start-config.ts';
import { registerQueueGauges } from '../../shared/io/metrics.ts';
import { producerConnection } from '../../shared/io/queue/connection.ts';
import { createReconcileQueue } from '../../shared/io/queue/reconcile-queue.ts';
import { dashboardRouter } from './app.ts';

export const start: StartFunction = async ({ config, app, registry, addProbe, log }) => {
  const redisUrl = required(config.redisUrl, 'REDIS_URL', 'dashboard');
  const queue = createReconcileQueue({ connection: producerConnection(redisUrl), names: { prefix: config.queue.prefix, queue: config.queue.name } });
  app.use(dashboardRouter({ queue: queue.bull, readOnly: config.dashboard.readOnly, token: config.dashboard.token }));
  registerQueueGauges(registry, config.queue.name, () => queue.bull.getJobCounts());
  addProbe({ name: 'dashboard-redis', check: () => queue.ping().then(() => true) });
  log.info({ path: '/admin/queues', readOnly: config.dashboard.readOnly, token: config.dashboard.token ? 'required' : 'none' }, 'dashboard mounted');
  return { close: () => queue.close() };
};
