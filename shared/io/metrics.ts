// Prometheus metrics under the names Kubernetes operators export (client-go's workqueue_*,
// controller-runtime's controller_runtime_*), so existing dashboards and alerts work, plus
// BullMQ's job counts by state. One set per registry: functions sharing a process share it.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export { Registry };

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface QueueMetrics {
  readonly adds: Counter<'name'>;
  readonly retries: Counter<'name'>;
  readonly queueDuration: Histogram<'name'>;
  readonly workDuration: Histogram<'name'>;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
}

const queueMetricsByRegistry = new WeakMap<Registry, QueueMetrics>();

export function createRegistry(options: { defaultMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}

export function queueMetrics(registry: Registry): QueueMetrics {
  const existing = queueMetricsByRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: QueueMetrics = {
    adds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers,
    }),
    retries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers,
    }),
    queueDuration: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'],
      buckets: durationBuckets,
      registers,
    }),
    workDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name'],
      buckets: durationBuckets,
      registers,
    }),
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: durationBuckets,
      registers,
    }),
  };
  queueMetricsByRegistry.set(registry, metrics);
  return metrics;
}

export type JobCounts = Record<string, number>;

const countedRegistries = new WeakSet<Registry>();

/**
 * Gauges read from the queue at scrape time: workqueue_depth (jobs ready to run) and
 * bullmq_jobs{state}. Registered once per registry.
 */
export function registerQueueGauges(registry: Registry, name: string, counts: () => Promise<JobCounts>): void {
  if (countedRegistries.has(registry)) return;
  countedRegistries.add(registry);
  const registers = [registry];
  let last: Promise<JobCounts> | undefined;
  // Both gauges share one round trip per scrape.
  const read = () =>
    (last ??= counts().finally(() =>
      setTimeout(() => {
        last = undefined;
      }, 100),
    ));
  new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name'],
    registers,
    async collect() {
      const c = await read().catch(() => undefined);
      if (c) this.set({ name }, (c.waiting ?? 0) + (c.prioritized ?? 0));
    },
  });
  new Gauge({
    name: 'bullmq_jobs',
    help: 'BullMQ jobs of the queue by state',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      const c = await read().catch(() => undefined);
      for (const [state, n] of Object.entries(c ?? {})) this.set({ queue: name, state }, n);
    },
  });
}
