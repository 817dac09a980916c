// The periodic resync: ApiServerSource sends nothing for objects that exist when it starts
// and drops events it cannot deliver, so every RedisCluster is queued again periodically.
// A BullMQ job scheduler creates one `resync` job per period (whichever worker takes it
// lists the clusters); each key is queued after a random delay within the jitter window so
// a resync does not arrive as one burst.
import type { ReconcileQueue } from './reconcile-queue.ts';
import { defaultRetention, resyncJobName, retained, type Retention } from './job-options.ts';
import type { Logger } from '../log.ts';

/** Lists the keys ("namespace/name") of every RedisCluster. */
export type ListKeys = () => Promise<string[]>;

export interface ResyncSettings {
  readonly everyMs: number;
  /** Keys are spread over [0, jitterMs). */
  readonly jitterMs: number;
}

export const resyncSchedulerId = 'resync-all';

export async function scheduleResync(
  queue: ReconcileQueue,
  settings: ResyncSettings,
  retention: Retention = defaultRetention,
): Promise<void> {
  await queue.bull.upsertJobScheduler(
    resyncSchedulerId,
    { every: settings.everyMs },
    {
      name: resyncJobName,
      data: { key: '', reason: 'resync' },
      opts: retained(retention),
    },
  );
}

export function resyncHandler(
  queue: ReconcileQueue,
  list: ListKeys,
  settings: ResyncSettings,
  log: Logger,
  random: () => number = Math.random,
): () => Promise<void> {
  return async () => {
    const keys = await list();
    for (const key of keys) await queue.enqueueResync(key, Math.floor(random() * settings.jitterMs));
    log.info({ keys: keys.length }, 'resync queued every RedisCluster');
  };
}
