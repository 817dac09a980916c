// A recording test reconcile: every run appends "start" and "end" records (key, pid, time)
// to a Redis list, so runs in several processes can be checked for overlap afterwards.
import type { QueueClient } from '../../../shared/io/queue/connection.ts';
import { done, type Outcome } from '../../../shared/core/outcome.ts';
import type { Reconcile } from '../../../shared/io/queue/queue-worker.ts';

export interface RunRecord {
  key: string;
  pid: number;
  start: number;
  end?: number;
}

export function recordingReconcile(
  redis: QueueClient,
  list: string,
  options: { runMs: number; outcome?: (key: string, n: number) => Outcome | Error },
): Reconcile {
  let n = 0;
  return async (key) => {
    const start = Date.now();
    await redis.rpush(list, JSON.stringify({ t: 'start', key, pid: process.pid, at: start }));
    await new Promise((r) => setTimeout(r, options.runMs));
    const result = options.outcome?.(key, n++) ?? done();
    await redis.rpush(list, JSON.stringify({ t: 'end', key, pid: process.pid, at: Date.now() }));
    if (result instanceof Error) throw result;
    return result;
  };
}

/** Reads the records back as runs (a run whose process died has no end). */
export async function readRuns(redis: QueueClient, list: string): Promise<RunRecord[]> {
  const open = new Map<string, RunRecord>();
  const runs: RunRecord[] = [];
  for (const line of await redis.lrange(list, 0, -1)) {
    const r = JSON.parse(line) as { t: string; key: string; pid: number; at: number };
    const id = `${r.pid} ${r.key}`;
    if (r.t === 'start') {
      const run = { key: r.key, pid: r.pid, start: r.at };
      runs.push(run);
      open.set(id, run);
    } else {
      const run = open.get(id);
      if (run) run.end = r.at;
      open.delete(id);
    }
  }
  return runs;
}

/** Pairs of runs of one key that overlapped in time. */
export function overlaps(runs: RunRecord[], killedAt = new Map<number, number>()): string[] {
  const byKey = new Map<string, RunRecord[]>();
  for (const run of runs) byKey.set(run.key, [...(byKey.get(run.key) ?? []), run]);
  const found: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const end = prev.end ?? killedAt.get(prev.pid) ?? Infinity;
      if (list[i]!.start < end)
        found.push(`${key}: run at ${list[i]!.start} began before the run from ${prev.start} ended (${end})`);
    }
  }
  return found;
}
