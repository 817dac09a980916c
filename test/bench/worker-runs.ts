// The reconcile worker's runs as its own log tells them: every run ends with a `reconciled`
// line (shared/io/queue/queue-worker.ts) naming the key, why it was queued (event, resync,
// requeue, retry), how long it took and its outcome. The audit log says what a pass asked the
// API server; this says why the pass ran and how long it took.
import { readFile } from 'node:fs/promises';

export interface WorkerRun {
  readonly at: number;
  readonly key: string;
  readonly reason: string;
  readonly ms: number;
  /** done, requeueAfter, ... (a failed run has no outcome). */
  readonly outcome: string;
  readonly summary: string;
}

interface LogLine {
  msg?: string;
  time?: number;
  key?: string;
  reason?: string;
  ms?: number;
  outcome?: { kind?: string; note?: { summary?: string } };
}

/** The runs that ended in [from, to) (epoch ms), from the worker's log file. */
export async function workerRuns(logPath: string, from: number, to = Infinity): Promise<WorkerRun[]> {
  const text = await readFile(logPath, 'utf8');
  return text.split('\n').flatMap((line): WorkerRun[] => {
    if (!line.includes('"reconciled"')) return [];
    let l: LogLine;
    try {
      l = JSON.parse(line) as LogLine;
    } catch {
      return []; // the line being written
    }
    if (l.msg !== 'reconciled' || l.time === undefined || l.time < from || l.time >= to) return [];
    return [
      {
        at: l.time,
        key: l.key ?? '',
        reason: l.reason ?? '',
        ms: l.ms ?? NaN,
        outcome: l.outcome?.kind ?? '',
        summary: l.outcome?.note?.summary ?? '',
      },
    ];
  });
}

/** How many of xs fall in each group, most first. */
export function countBy<T>(xs: readonly T[], group: (x: T) => string): Record<string, number> {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(group(x), (counts.get(group(x)) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}
