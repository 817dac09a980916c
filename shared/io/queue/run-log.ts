// What the dashboard shows of past runs, kept in the queue's Redis beside the queue: each
// key's last runs (a capped list), the status snapshot its last run found or wrote, and an
// hour of finished runs and queue depth samples for the charts. The worker writes a run after
// each reconcile; the dashboard samples the depth and reads it all. Everything is bounded:
// lists are capped, the sorted sets trimmed to their window, a key not run for a day dropped.
import type { QueueClient } from './connection.ts';
import type { RunNote, RunRecord, StatusSnapshot } from '../../core/run-note.ts';
import { queueKeys, type QueueNames } from './keys.ts';

export const runsKept = 10;
export const chartWindowMs = 3_600_000;
/** A key without a run for this long (deleted, or moved to another queue) leaves the view. */
export const forgetAfterMs = 24 * 3_600_000;

export interface DepthSample {
  readonly at: number;
  readonly waiting: number;
  readonly delayed: number;
  readonly active: number;
}

/** The queue's depth from BullMQ's job counts (getJobCounts). */
export function depthSample(counts: Readonly<Record<string, number>>, at: number): DepthSample {
  return {
    at,
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    delayed: counts.delayed ?? 0,
    active: counts.active ?? 0,
  };
}

/** The job states depthSample reads. */
export const depthStates = ['waiting', 'prioritized', 'delayed', 'active'] as const;

export interface KeyHistory {
  readonly key: string;
  /** Newest first. */
  readonly runs: readonly RunRecord[];
  readonly status: StatusSnapshot | undefined;
}

export interface RunLogView {
  readonly keys: readonly KeyHistory[];
  /** Runs of the last hour (time and result), oldest first. */
  readonly timeline: readonly Pick<RunRecord, 'at' | 'result'>[];
  readonly depth: readonly DepthSample[];
}

export interface RunLog {
  record(run: RunRecord, note: RunNote | undefined): Promise<void>;
  sampleDepth(sample: DepthSample): Promise<void>;
  read(now: number): Promise<RunLogView>;
}

export function runLog(redis: QueueClient, names: QueueNames): RunLog {
  const keys = queueKeys(names);
  return {
    async record(run, note) {
      const stale = await redis.zrangebyscore(keys.seen, '-inf', run.at - forgetAfterMs);
      const tx = redis.multi();
      if (stale.length > 0) tx.hdel(keys.status, ...stale).zrem(keys.seen, ...stale);
      tx.zadd(keys.timeline, run.at, `${run.at}|${run.result}|${run.jobId}`).zremrangebyscore(
        keys.timeline,
        '-inf',
        run.at - chartWindowMs,
      );
      if (note?.gone) {
        tx.del(keys.runs(run.key)).hdel(keys.status, run.key).zrem(keys.seen, run.key);
      } else {
        tx.lpush(keys.runs(run.key), JSON.stringify(run))
          .ltrim(keys.runs(run.key), 0, runsKept - 1)
          .pexpire(keys.runs(run.key), forgetAfterMs);
        tx.zadd(keys.seen, run.at, run.key);
        if (note?.status) tx.hset(keys.status, run.key, JSON.stringify(note.status));
      }
      await tx.exec();
    },
    async sampleDepth(sample) {
      await redis
        .multi()
        .zadd(keys.depth, sample.at, `${sample.at}|${sample.waiting}|${sample.delayed}|${sample.active}`)
        .zremrangebyscore(keys.depth, '-inf', sample.at - chartWindowMs)
        .exec();
    },
    async read(now) {
      const seen = await redis.zrangebyscore(keys.seen, now - forgetAfterMs, '+inf');
      const histories = await Promise.all(
        seen.map(async (key): Promise<KeyHistory> => {
          const [runs, status] = await Promise.all([
            redis.lrange(keys.runs(key), 0, runsKept - 1),
            redis.hget(keys.status, key),
          ]);
          return {
            key,
            runs: runs.map((r) => JSON.parse(r) as RunRecord),
            status: status ? (JSON.parse(status) as StatusSnapshot) : undefined,
          };
        }),
      );
      const since = now - chartWindowMs;
      const timeline = (await redis.zrangebyscore(keys.timeline, since, '+inf')).map((m) => {
        const [at, result] = m.split('|');
        return { at: Number(at), result: result as RunRecord['result'] };
      });
      const depth = (await redis.zrangebyscore(keys.depth, since, '+inf')).map((m) => {
        const [at, waiting, delayed, active] = m.split('|').map(Number);
        return { at: at!, waiting: waiting!, delayed: delayed!, active: active! };
      });
      return { keys: histories, timeline, depth };
    },
  };
}
