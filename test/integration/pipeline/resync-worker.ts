// A reconcile worker process with the periodic resync, for resync.test.ts: startWorker as the
// reconcile function runs it (real API server list, BullMQ job scheduler), with the recording
// reconcile; every resync it runs is recorded as { t: 'resync', pid, at } in `${list}:resync`.
import { workerConnection, type QueueRedisTarget } from '../../../shared/io/queue/connection.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { defaultBackoff } from '../../../shared/core/queue/backoff.ts';
import { kubeListClusterKeys, loadKubeConfig } from '../../../functions/kube.ts';
import { readConfig } from '../../../functions/start-config.ts';
import { startWorker } from '../../../functions/reconcile/worker.ts';
import { recordingReconcile } from './recording.ts';

const settings = JSON.parse(process.argv[2] ?? '{}') as {
  redis: QueueRedisTarget;
  prefix: string;
  queue: string;
  list: string;
  kubeconfig: string;
  everyMs: number;
  jitterMs: number;
};
const { resync } = readConfig({
  RESYNC_INTERVAL_MS: String(settings.everyMs),
  RESYNC_JITTER_MS: String(settings.jitterMs),
});
const recorder = workerConnection(settings.redis);
const list = kubeListClusterKeys(loadKubeConfig(settings.kubeconfig));
const worker = await startWorker({
  reconcile: recordingReconcile(recorder, settings.list, { runMs: 20 }),
  listKeys: async () => {
    await recorder.rpush(`${settings.list}:resync`, JSON.stringify({ t: 'resync', pid: process.pid, at: Date.now() }));
    return list();
  },
  redis: settings.redis,
  names: { prefix: settings.prefix, queue: settings.queue },
  settings: {
    concurrency: 4,
    timeoutMs: 60_000,
    lockDurationMs: 10_000,
    stalledIntervalMs: 5_000,
    maxStalledCount: 5,
    backoff: defaultBackoff,
  },
  resync,
  log: createLogger({ level: 'warn', name: 'resync-worker' }),
});
process.send?.('ready');
process.once('SIGTERM', () => {
  void worker
    .close()
    .then(() => recorder.quit())
    .then(() => process.exit(0));
});
