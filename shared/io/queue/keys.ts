// Every Redis key name the reconcile queue uses, built in one place. BullMQ owns the keys
// under `<prefix>:<queue>:`; knredis adds its own under `<prefix>:<queue>:kn:`.
import { createHash } from 'node:crypto';

export interface QueueNames {
  /** BullMQ's key prefix (default "bull"). */
  readonly prefix: string;
  /** The queue's name (default "reconcile"). */
  readonly queue: string;
}

/**
 * The BullMQ deduplication id of a resource key. A hash, never the raw key: keys contain
 * '/', ids end up in Redis key names and in job hashes, and BullMQ bans ':' in ids.
 */
export function dedupIdOf(key: string): string {
  return 'k' + createHash('sha256').update(key).digest('base64url').slice(0, 22);
}

export function queueKeys(names: QueueNames) {
  const base = `${names.prefix}:${names.queue}`;
  return {
    base,
    /** BullMQ's hash of one job. */
    job: (jobId: string) => `${base}:${jobId}`,
    /** BullMQ's lock of an active job: the token of the worker running it. */
    lock: (jobId: string) => `${base}:${jobId}:lock`,
    /** BullMQ's "next job" stored while the key's job is active (keepLastIfActive). */
    dedupNext: (dedupId: string) => `${base}:dn:${dedupId}`,
    /** BullMQ's deduplication key: the id of the job that holds the key's place. */
    dedup: (dedupId: string) => `${base}:de:${dedupId}`,
    /** knredis: hash resource key -> consecutive failures (the per-key backoff state). */
    failures: `${base}:kn:failures`,
    /** knredis: capped list of a key's last runs, newest first (RunRecord JSON). */
    runs: (key: string) => `${base}:kn:runs:${dedupIdOf(key)}`,
    /** knredis: hash resource key -> the status snapshot its last run found or wrote. */
    status: `${base}:kn:status`,
    /** knredis: sorted set of resource keys by the time of their last run. */
    seen: `${base}:kn:seen`,
    /** knredis: sorted set of finished runs by time ("at|result|jobId"), for the runs chart. */
    timeline: `${base}:kn:timeline`,
    /** knredis: sorted set of queue depth samples by time ("at|waiting|delayed|active"). */
    depth: `${base}:kn:depth`,
  };
}

export type QueueKeys = ReturnType<typeof queueKeys>;
