// "Never two runs of one key at once", checked from the reconcile workers' logs: each run logs
// `run started` and one end line with the same reconcileId, every line of a run carrying its
// process id. A run ends when its reconcile returned (the end line's `endedAt`; the line itself
// comes after the queue's bookkeeping, which waits for the queue's Redis), or at the end line's
// time when it has none. A run whose worker died before its end line ends at the last line that
// process logged. Two runs of a key whose intervals intersect are an overlap.
import { readFile } from 'node:fs/promises';

export interface Run {
  readonly key: string;
  readonly id: string;
  readonly pid: number;
  readonly start: number;
  readonly end: number;
}

const endings = new Set([
  'reconciled',
  'reconcile failed for good',
  'reconcile failed; will retry',
  'run lost its key; stopped without counting a failure',
]);

/** The runs in the given pino JSON lines, of any number of worker processes (pure). */
export function runsOf(lines: readonly string[]): Run[] {
  const open = new Map<string, { key: string; pid: number; start: number; end?: number }>();
  const lastOfPid = new Map<number, number>();
  for (const text of lines) {
    let entry: { msg?: string; key?: string; reconcileId?: string; pid?: number; time?: number; endedAt?: number };
    try {
      entry = JSON.parse(text) as typeof entry;
    } catch {
      continue;
    }
    const time = entry.time ?? 0;
    if (entry.pid !== undefined) lastOfPid.set(entry.pid, Math.max(lastOfPid.get(entry.pid) ?? 0, time));
    if (entry.msg === 'run started' && entry.key && entry.reconcileId) {
      open.set(entry.reconcileId, { key: entry.key, pid: entry.pid ?? 0, start: time });
    } else if (entry.reconcileId && entry.msg && endings.has(entry.msg)) {
      const run = open.get(entry.reconcileId);
      if (run) run.end = entry.endedAt ?? time;
    }
  }
  return [...open].map(([id, r]) => ({
    key: r.key,
    id,
    pid: r.pid,
    start: r.start,
    end: r.end ?? lastOfPid.get(r.pid) ?? r.start,
  }));
}

/** Pairs of runs of the same key whose intervals intersect (pure). */
export function overlaps(runs: readonly Run[]): [Run, Run][] {
  const byKey = new Map<string, Run[]>();
  for (const r of runs) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  const found: [Run, Run][] = [];
  for (const list of byKey.values()) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    sorted.forEach((run, i) => {
      for (const later of sorted.slice(i + 1)) {
        if (later.start >= run.end) break;
        found.push([run, later]);
      }
    });
  }
  return found;
}

/** Overlapping runs of `key` (namespace/name) in the workers' log files. */
export async function overlappingRuns(logFiles: readonly string[], key?: string): Promise<[Run, Run][]> {
  const runs = (await Promise.all(logFiles.map(async (f) => runsOf((await readFile(f, 'utf8')).split('\n'))))).flat();
  return overlaps(key ? runs.filter((r) => r.key === key) : runs);
}
