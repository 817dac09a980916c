// One row per RedisCluster key, as the cluster view shows it: the status its last run wrote,
// its last runs, and when the queue runs it next. Pure: built from what was read.
import { assertNever } from '../../shared/core/assert-never.ts';
import type { RunRecord, StatusSnapshot } from '../../shared/core/run-note.ts';
import { formatMs } from '../../shared/core/run-note.ts';
import type { EnqueueReason } from '../../shared/io/queue/job-options.ts';

/** When the key runs next, as the queue holds it. */
export type NextRun =
  | { readonly kind: 'running'; readonly jobId: string; readonly then?: FollowUp }
  | { readonly kind: 'queued'; readonly jobId: string }
  | {
      readonly kind: 'delayed';
      readonly at: number;
      readonly reason: EnqueueReason;
      readonly failures?: number;
      readonly jobId: string;
    }
  /** Nothing queued: the next event or the periodic resync runs it. */
  | { readonly kind: 'resync'; readonly at: number | undefined };

/** The run stored to follow the current one: a change seen during it, or its requeue/retry. */
export interface FollowUp {
  readonly reason: EnqueueReason;
  readonly delayMs: number;
  readonly failures?: number;
}

export interface ClusterRow {
  readonly key: string;
  readonly status: StatusSnapshot | undefined;
  /** Newest first. */
  readonly runs: readonly RunRecord[];
  readonly next: NextRun;
}

export type Attention = 'failing' | 'busy' | 'ok';

/** Failing first (the last run failed, or Degraded), then the ones with work in flight. */
export function attentionOf(row: ClusterRow): Attention {
  const last = row.runs[0];
  const degraded = row.status?.conditions?.some((c) => c.type === 'Degraded' && c.status === 'True');
  if (last?.result === 'retry' || last?.result === 'terminal' || degraded || row.status?.phase === 'Failed')
    return 'failing';
  const ready = row.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  return ready && !row.status?.operation ? 'ok' : 'busy';
}

const rank: Record<Attention, number> = { failing: 0, busy: 1, ok: 2 };

export function sortRows(rows: readonly ClusterRow[]): ClusterRow[] {
  return [...rows].sort((a, b) => rank[attentionOf(a)] - rank[attentionOf(b)] || a.key.localeCompare(b.key));
}

/** "in 4.2 s (requeue-after)", "running now, one more run queued", "with the next resync in 3 min". */
export function describeNext(next: NextRun, now: number): string {
  switch (next.kind) {
    case 'running': {
      const then = next.then;
      if (!then) return 'running now';
      return then.delayMs > 0
        ? `running now; then again after ${formatMs(then.delayMs)} (${why(then)})`
        : 'running now; then once more for a change';
    }
    case 'queued':
      return 'queued, runs next';
    case 'delayed':
      return `${next.at <= now ? 'due now' : `in ${formatMs(next.at - now)}`} (${why(next)})`;
    case 'resync':
      return next.at === undefined
        ? 'on the next change or resync'
        : `on the next change, or the resync ${next.at <= now ? 'due now' : `in ${formatMs(next.at - now)}`}`;
    default:
      return assertNever(next, 'next run');
  }
}

function why(next: { reason: EnqueueReason; failures?: number | undefined }): string {
  const reasons: Record<EnqueueReason, string> = {
    requeue: 'requeue-after',
    retry: `backoff after failure ${next.failures ?? '?'}`,
    resync: 'resync',
    event: 'a change',
  };
  return reasons[next.reason];
}

/** "1200/5461" in an operation's progress, as a fraction for a progress bar. */
export function progressFraction(progress: string | undefined): { done: number; total: number } | undefined {
  const match = /(\d+)\/(\d+)/.exec(progress ?? '');
  if (!match) return undefined;
  const total = Number(match[2]);
  return total > 0 ? { done: Number(match[1]), total } : undefined;
}
