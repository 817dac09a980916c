// Reads what the cluster view shows: each key's runs and status from the run log, and its
// place in the queue (running, queued, waiting out a backoff or requeue-after, or nothing
// until the next event or resync). Read-only: no command here changes the queue.
import type { Queue } from 'bullmq';
import type { QueueClient } from '../../shared/io/queue/connection.ts';
import { isReconcileJob, type ReconcileJobData } from '../../shared/io/queue/job-options.ts';
import { dedupIdOf, queueKeys, type QueueNames } from '../../shared/io/queue/keys.ts';
import { resyncSchedulerId } from '../../shared/io/queue/resync.ts';
import { depthSample, depthStates, runLog, type DepthSample } from '../../shared/io/queue/run-log.ts';
import type { RunRecord } from '../../shared/core/run-note.ts';
import { sortRows, type ClusterRow, type FollowUp, type NextRun } from './cluster-rows.ts';

export interface ClusterView {
  readonly now: number;
  readonly rows: readonly ClusterRow[];
  readonly timeline: readonly Pick<RunRecord, 'at' | 'result'>[];
  /** Samples of the last hour, the current depth last. */
  readonly depth: readonly DepthSample[];
  readonly failedJobs: number;
}

/** The queue, and a connection to its Redis for knredis' own keys. */
export interface QueueSource {
  readonly queue: Queue<ReconcileJobData>;
  readonly redis: QueueClient;
  readonly names: QueueNames;
}

export async function readClusterView({ queue, redis, names }: QueueSource, now: number): Promise<ClusterView> {
  const keys = queueKeys(names);
  const runs = runLog(redis, names);
  const [log, active, waiting, delayed, scheduler, counts] = await Promise.all([
    runs.read(now),
    queue.getJobs(['active']),
    queue.getJobs(['waiting', 'prioritized']),
    queue.getJobs(['delayed']),
    queue.getJobScheduler(resyncSchedulerId),
    queue.getJobCounts(...depthStates, 'failed'),
  ]);
  const next = new Map<string, NextRun>();
  // Least definite first, so a running key is shown as running whatever else is queued for it.
  for (const job of delayed) {
    if (!isReconcileJob(job.name, job.data)) continue;
    next.set(job.data.key, {
      kind: 'delayed',
      at: job.timestamp + (job.delay ?? 0),
      reason: job.data.reason,
      failures: job.data.failures,
      jobId: String(job.id),
    });
  }
  for (const job of waiting)
    if (isReconcileJob(job.name, job.data)) next.set(job.data.key, { kind: 'queued', jobId: String(job.id) });
  for (const job of active) {
    if (!isReconcileJob(job.name, job.data)) continue;
    const then = followUpOf(await redis.hmget(keys.dedupNext(dedupIdOf(job.data.key)), 'data', 'opts'));
    next.set(job.data.key, { kind: 'running', jobId: String(job.id), ...(then ? { then } : {}) });
  }
  const resync: NextRun = { kind: 'resync', at: scheduler?.next };
  const rows = new Map<string, ClusterRow>(log.keys.map((h) => [h.key, { ...h, next: next.get(h.key) ?? resync }]));
  // A key queued but never run yet still gets its row.
  for (const [key, n] of next) if (!rows.has(key)) rows.set(key, { key, status: undefined, runs: [], next: n });
  return {
    now,
    rows: sortRows([...rows.values()]),
    timeline: log.timeline,
    depth: [...log.depth, depthSample(counts, now)],
    failedJobs: counts.failed ?? 0,
  };
}

/** BullMQ's stored "next job" of a running key (data and opts as JSON), if there is one. */
function followUpOf([data, opts]: (string | null)[]): FollowUp | undefined {
  if (!data) return undefined;
  const { reason, failures } = JSON.parse(data) as ReconcileJobData;
  const delayMs = Number((JSON.parse(opts ?? '{}') as { delay?: number }).delay ?? 0);
  return { reason, delayMs, ...(failures ? { failures } : {}) };
}
