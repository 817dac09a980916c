// The value a finished reconcile job returns, as bull-board shows it: the run's outcome in
// words, the plan's one-line summary and the phase of the status it wrote.
import { describeRun, type RunRecord } from '../../core/run-note.ts';

export interface RunReturn {
  readonly outcome: string;
  readonly summary?: string;
  readonly phase?: string;
}

export function runReturn(run: RunRecord): RunReturn {
  return {
    outcome: describeRun(run),
    ...(run.summary ? { summary: run.summary } : {}),
    ...(run.phase ? { phase: run.phase } : {}),
  };
}
