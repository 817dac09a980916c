// Wiring of the ingest function: the sender check (TokenReview, ./sender-auth.ts), the queue
// producer (fail-fast Redis connection) and its memory watch (./queue-pressure.ts), the owner
// lookup for reference-mode events, the resync owed after refused events or a change of the
// queue's master (./owed-resync.ts), and the router on the shared HTTP app.
import type { StartFunction } from '../function-context.ts';
import { QUEUE_REDIS_VARIABLES, required } from '../start-config.ts';
import { queueMetrics } from '../../shared/io/metrics.ts';
import { producerConnection } from '../../shared/io/queue/connection.ts';
import { onMasterChange } from '../../shared/io/queue/master-change.ts';
import { createReconcileQueue } from '../../shared/io/queue/reconcile-queue.ts';
import { ingestHandler } from './app.ts';
import { lazyKube } from './lazy-lookup.ts';
import { owedResync } from './owed-resync.ts';
import { watchQueuePressure } from './queue-pressure.ts';
import { anySender, tokenReviewSender } from './sender-auth.ts';
import { retained, defaultRetention, resyncJobName } from '../../shared/io/queue/job-options.ts';

export const start: StartFunction = async ({ config, log, serveDirect, registry, addProbe }) => {
  const queueRedis = required(config.queueRedis, QUEUE_REDIS_VARIABLES, 'ingest');
  const metrics = queueMetrics(registry);
  const names = { prefix: config.queue.prefix, queue: config.queue.name };
  const redis = producerConnection(queueRedis);
  const queue = createReconcileQueue({
    connection: redis,
    names,
    onAdd: () => metrics.adds.inc({ name: names.queue }),
  });
  const { lookup, review } = lazyKube(config.kubeconfig);
  const auth = config.ingest.auth;
  const checkSender = auth.mode === 'none' ? anySender : tokenReviewSender({ ...auth, review });
  if (auth.mode === 'none') log.warn('INGEST_AUTH=none: ingest accepts events from anyone');
  else
    log.info(
      { audience: auth.audience, allowedSubjects: auth.allowedSubjects, reviewLimit: auth.reviewLimit },
      'ingest authenticates senders',
    );
  const pressure = watchQueuePressure({
    redis,
    highWater: config.ingest.queueHighWater,
    everyMs: config.ingest.queueCheckMs,
    log,
  });
  // Every 503 to an event is a dropped event once the sender gives up: owe a resync.
  const owed = owedResync({
    requestResync: async () => {
      await queue.bull.add(resyncJobName, { key: '', reason: 'resync' }, retained(defaultRetention));
    },
    everyMs: 1_000,
    log,
  });
  // A failover can lose adds the old master acknowledged (202 sent): owe a resync for them.
  const stopWatchingMaster = onMasterChange(redis, () => {
    log.warn("the queue's Redis changed master: a resync is owed for adds it may have lost");
    owed.owe();
  });
  const ingest = ingestHandler({
    enqueue: queue.enqueue,
    lookup,
    checkSender,
    queueFull: pressure.full,
    onUnavailable: owed.owe,
    maxBodyBytes: config.ingest.maxBodyBytes,
    maxEvents: config.ingest.maxEvents,
    retryAfterS: config.ingest.retryAfterS,
    log,
    ...(config.watchNamespace ? { watchNamespace: config.watchNamespace } : {}),
  });
  serveDirect('POST /', ingest);
  addProbe({ name: 'queue-redis', check: () => queue.ping().then(() => true) });
  return {
    close: () => {
      stopWatchingMaster();
      owed.stop();
      pressure.stop();
      // Refusals counted since the last summary would otherwise leave with the process.
      ingest.stop();
      return queue.close();
    },
  };
};
