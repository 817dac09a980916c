// A reconcile worker in its own process for the multi-process tests: settings as one JSON
// argument; it records runs with the recording reconcile and drains on SIGTERM.
import { workerConnection, type QueueRedisTarget } from '../../../shared/io/queue/connection.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { startQueueWorker } from '../../../shared/io/queue/queue-worker.ts';
import { defaultBackoff } from '../../../shared/core/queue/backoff.ts';
import { recordingReconcile } from './recording.ts';

const config = JSON.parse(process.argv[2] ?? '{}') as {
  redis: QueueRedisTarget;
  prefix: string;
  queue: string;
  list: string;
  runMs: number;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
};
const recorder = workerConnection(config.redis);
const worker = startQueueWorker({
  redis: config.redis,
  names: { prefix: config.prefix, queue: config.queue },
  reconcile: recordingReconcile(recorder, config.list, { runMs: config.runMs }),
  settings: {
    concurrency: config.concurrency,
    timeoutMs: 60_000,
    lockDurationMs: config.lockDurationMs,
    stalledIntervalMs: config.stalledIntervalMs,
    maxStalledCount: 5,
    backoff: defaultBackoff,
  },
  log: createLogger({ level: 'warn', name: 'test-worker' }),
});
await worker.bull.waitUntilReady();
process.send?.('ready');
process.once('SIGTERM', () => {
  void worker
    .close()
    .then(() => recorder.quit())
    .then(() => process.exit(0));
});
