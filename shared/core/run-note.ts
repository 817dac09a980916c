// What one reconcile run tells a person: the step it took in one line, the status it wrote,
// and how it ended. The worker keeps the last few runs of each key in the queue's Redis and
// returns the same as the job's value, so the dashboard reads a list of clusters, not a list
// of anonymous jobs. Status fields only: nothing here may ever hold a secret.
import type { Condition } from './api/k8s-types.ts';
import type { OperationStatus, Phase, RedisClusterStatus } from './api/v1beta1.ts';

/** The part of a RedisCluster's status a person scans: no shards, no node ids. */
export interface StatusSnapshot {
  readonly phase?: Phase;
  readonly conditions?: readonly Pick<Condition, 'type' | 'status' | 'reason' | 'message'>[];
  readonly slotsCovered?: number;
  readonly readyNodes?: number;
  readonly operation?: OperationStatus;
}

export interface RunNote {
  /** One line: the step taken or the state waited on ("migrating slots: 1200/5461"). */
  readonly summary?: string;
  /** The status this run found or wrote. */
  readonly status?: StatusSnapshot;
  /** The RedisCluster no longer exists: its records can go. */
  readonly gone?: boolean;
}

export function snapshotOf(status: RedisClusterStatus | undefined): StatusSnapshot | undefined {
  if (!status) return undefined;
  const { phase, slotsCovered, readyNodes, operation } = status;
  const conditions = status.conditions?.map(({ type, status: s, reason, message }) => ({
    type,
    status: s,
    reason,
    message,
  }));
  return { phase, slotsCovered, readyNodes, operation, conditions };
}

/** How a run ended, as the queue acted on it. */
export type RunResult = 'done' | 'awaitChange' | 'requeue' | 'retry' | 'terminal';

/** One finished run of a key, as kept for the dashboard. */
export interface RunRecord {
  readonly key: string;
  readonly jobId: string;
  /** When the run finished (ms since the epoch). */
  readonly at: number;
  readonly durationMs: number;
  readonly result: RunResult;
  /** The wait before the next run: requeue-after or the retry's backoff. */
  readonly delayMs?: number;
  /** Consecutive failures, on a retry. */
  readonly failures?: number;
  readonly summary?: string;
  readonly phase?: Phase;
  /** The error of a failed run, as its message says it (free of secrets like every message). */
  readonly error?: string;
}

/** The run in one line: "requeue after 200 ms", "error (retry in 2 s): ..." */
export function describeRun(run: Pick<RunRecord, 'result' | 'delayMs' | 'error' | 'failures'>): string {
  const wait = run.delayMs === undefined ? '' : ` after ${formatMs(run.delayMs)}`;
  switch (run.result) {
    case 'done':
      return 'done';
    case 'awaitChange':
      return 'done, waiting for a change';
    case 'requeue':
      return `requeue${wait}`;
    case 'retry':
      return `error, retry${wait}${run.failures ? ` (failure ${run.failures})` : ''}: ${run.error ?? ''}`;
    case 'terminal':
      return `error, not retried: ${run.error ?? ''}`;
  }
}

export function formatMs(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${+(ms / 1_000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)} min`;
  return `${+(ms / 3_600_000).toFixed(1)} h`;
}
