// Wiring of the dashboard function: bull-board on the reconcile queue, the cluster view, a
// sampler of the queue depth for its chart, and the job counts on /metrics (workqueue_depth,
// bullmq_jobs{state}).
import type { StartFunction } from '../function-context.ts';
import { ConfigError, QUEUE_REDIS_VARIABLES, required } from '../start-config.ts';
import { registerQueueGauges } from '../../shared/io/metrics.ts';
import { producerConnection } from '../../shared/io/queue/connection.ts';
import { createReconcileQueue } from '../../shared/io/queue/reconcile-queue.ts';
import { runLog } from '../../shared/io/queue/run-log.ts';
import { clustersPath, dashboardPath, dashboardRouter } from './app.ts';
import { startDepthSampler } from './depth-sampler.ts';

export const start: StartFunction = async ({ config, expressApp, registry, addProbe, log }) => {
  const queueRedis = required(config.queueRedis, QUEUE_REDIS_VARIABLES, 'dashboard');
  // The dashboard shows every cluster's name and errors, and bull-board can retry jobs: no
  // anonymous access unless asked for by name.
  if (!config.dashboard.token && config.dashboard.auth !== 'none')
    throw new ConfigError(
      'dashboard needs DASHBOARD_TOKEN (or DASHBOARD_TOKEN_FILE); DASHBOARD_AUTH=none serves it to anyone',
    );
  if (config.dashboard.token && config.dashboard.auth === 'none')
    throw new ConfigError('set DASHBOARD_TOKEN or DASHBOARD_AUTH=none, not both');
  const names = { prefix: config.queue.prefix, queue: config.queue.name };
  const redis = producerConnection(queueRedis);
  const queue = createReconcileQueue({ connection: redis, names });
  (await expressApp()).use(
    dashboardRouter({
      queue: queue.bull,
      redis,
      names,
      readOnly: config.dashboard.readOnly,
      token: config.dashboard.token,
    }),
  );
  const sampler = startDepthSampler(queue.bull, runLog(redis, names), config.dashboard.sampleEveryMs, log);
  registerQueueGauges(registry, config.queue.name, () => queue.bull.getJobCounts());
  addProbe({ name: 'dashboard-redis', check: () => queue.ping().then(() => true) });
  log.info(
    {
      paths: [dashboardPath, clustersPath],
      readOnly: config.dashboard.readOnly,
      token: config.dashboard.token ? 'required' : 'none',
    },
    'dashboard mounted',
  );
  return {
    async close() {
      sampler.stop();
      await queue.close();
    },
  };
};
