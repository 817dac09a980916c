// The one place that knows how knredis' queue semantics map onto BullMQ job options.
import type { JobsOptions } from 'bullmq';
import { dedupIdOf } from './keys.ts';

/** The name reconcile jobs had before they were named by their key (still run on upgrade). */
export const reconcileJobName = 'reconcile';
export const resyncJobName = 'resync';

/** A reconcile job is named by its key ("namespace/name"): bull-board lists clusters, not runs. */
export const jobNameOf = (key: string): string => key;

/** A reconcile job, whatever version queued it. No key is "resync": keys contain a '/'. */
export function isReconcileJob(name: string, data: Partial<ReconcileJobData> | undefined): data is ReconcileJobData {
  return typeof data?.key === 'string' && (name === jobNameOf(data.key) || name === reconcileJobName);
}

/** Why a key was queued; shown on the dashboard and in logs. */
export type EnqueueReason = 'event' | 'resync' | 'retry' | 'requeue';

export interface ReconcileJobData {
  readonly key: string;
  readonly reason: EnqueueReason;
  /** Consecutive failures so far (on retries). */
  readonly failures?: number;
}

/** Completed and failed jobs are kept for the dashboard, bounded in age and number. */
export interface Retention {
  readonly completedAgeS: number;
  readonly completedCount: number;
  readonly failedAgeS: number;
  readonly failedCount: number;
}

export const defaultRetention: Retention = Object.freeze({
  completedAgeS: 3600,
  completedCount: 1000,
  failedAgeS: 24 * 3600,
  failedCount: 1000,
});

/**
 * BullMQ trims the WHOLE completed (failed) set to `count` whenever a job with that option
 * finishes, whatever its name: every job of the queue must carry the same retention, or the
 * one with the smallest count empties the dashboard's history for all.
 */
export function retained(r: Retention): Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail' | 'attempts'> {
  return {
    removeOnComplete: { age: r.completedAgeS, count: r.completedCount },
    removeOnFail: { age: r.failedAgeS, count: r.failedCount },
    // Retries are knredis' own (per-key backoff that survives job replacement), not BullMQ's.
    attempts: 1,
  };
}

/**
 * An event: dedupe while queued; while the key runs, keep one follow-up for after the run
 * (keepLastIfActive); while it waits in backoff or requeue-after, replace the wait with an
 * immediate run (replace).
 */
export function eventJobOptions(key: string, retention: Retention): JobsOptions {
  return { deduplication: { id: dedupIdOf(key), keepLastIfActive: true, replace: true }, ...retained(retention) };
}

/**
 * A resync: only makes sure the key is queued at all. Anything already queued, waiting or
 * running for the key wins (a resync never shortens a backoff nor adds a follow-up).
 */
export function resyncJobOptions(key: string, delayMs: number, retention: Retention): JobsOptions {
  return { deduplication: { id: dedupIdOf(key) }, delay: delayMs, ...retained(retention) };
}
