// The producer side of the reconcile queue: enqueue a resource key (ingest, resync).
import { Queue } from 'bullmq';
import type { QueueClient } from './connection.ts';
import type { QueueNames } from './keys.ts';
import { addBatcher } from './add-batcher.ts';
import {
  defaultRetention,
  eventJobOptions,
  jobNameOf,
  resyncJobOptions,
  type ReconcileJobData,
  type Retention,
} from './job-options.ts';

export interface ReconcileQueue {
  readonly names: QueueNames;
  readonly bull: Queue<ReconcileJobData>;
  /**
   * Queues the key for a prompt run (an event). Resolves once Redis stored it. Keys queued
   * in the same turn of the event loop go to Redis in one pipeline.
   */
  enqueue(key: string): Promise<void>;
  /** Makes sure the key is queued, after delayMs, unless something is already queued for it. */
  enqueueResync(key: string, delayMs: number): Promise<void>;
  /** Resolves when Redis answers a PING; rejects when it is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface ReconcileQueueOptions {
  readonly connection: QueueClient;
  readonly names: QueueNames;
  readonly retention?: Retention;
  /** Called after each accepted add (for workqueue_adds_total). */
  readonly onAdd?: () => void;
}

export function createReconcileQueue(options: ReconcileQueueOptions): ReconcileQueue {
  const { connection, names, retention = defaultRetention, onAdd } = options;
  const bull = new Queue<ReconcileJobData>(names.queue, { connection, prefix: names.prefix });
  // A Queue emits 'error' on connection loss; without a listener Node would crash.
  bull.on('error', () => {});
  const events = addBatcher(async (keys) => {
    await bull.addBulk(
      keys.map((key) => ({
        name: jobNameOf(key),
        data: { key, reason: 'event' },
        opts: eventJobOptions(key, retention),
      })),
    );
    for (let i = 0; i < keys.length; i++) onAdd?.();
  });
  return {
    names,
    bull,
    enqueue: (key) => events.add(key),
    async enqueueResync(key, delayMs) {
      await bull.add(jobNameOf(key), { key, reason: 'resync' }, resyncJobOptions(key, delayMs, retention));
      onAdd?.();
    },
    async ping() {
      await connection.ping();
    },
    async close() {
      await bull.close();
    },
  };
}
