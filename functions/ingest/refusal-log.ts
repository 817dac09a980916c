// Refused events, logged without letting a flood of them flood the log: the first refusal of
// each kind (its status and error) is logged in full, the next ones only counted, and the
// counts go out in one summary line at most every `everyMs`. After a period with no refusal
// the next one is logged in full again. The fields logged are the caller's (never a token).
import type { Logger } from '../../shared/io/log.ts';

/** Runs `fn` once after `ms`; returns what cancels it. */
export type Schedule = (fn: () => void, ms: number) => () => void;

const timeout: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms).unref();
  return () => clearTimeout(timer);
};

export interface RefusalLog {
  refused(kind: string, fields: object): void;
  /** Logs the counts not logged yet. */
  stop(): void;
}

export function refusalLog(log: Logger, everyMs: number, schedule: Schedule = timeout): RefusalLog {
  const logged = new Set<string>();
  const counts = new Map<string, number>();
  let cancel: (() => void) | undefined;
  const summarize = () => {
    if (counts.size > 0) log.warn({ refused: Object.fromEntries(counts), overMs: everyMs }, 'events refused');
    counts.clear();
  };
  const tick = () => {
    cancel = undefined;
    // A quiet period: the next refusal is news again.
    if (counts.size === 0) return logged.clear();
    summarize();
    cancel = schedule(tick, everyMs);
  };
  return {
    refused(kind, fields) {
      if (logged.has(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
      else {
        logged.add(kind);
        log.warn(fields, 'event refused');
      }
      cancel ??= schedule(tick, everyMs);
    },
    stop() {
      cancel?.();
      cancel = undefined;
      summarize();
    },
  };
}
