// A reconcile pass in one line, for the dashboard and the job's return value: what the
// cluster is doing (the operation's progress, else the plan's message) and the first step
// this pass took ("migrating slots: 1200/5461; migrate 32 slot(s) in 1 move(s): rebalance").
import { describeStep, type Step } from '../cluster/steps.ts';

export function passSummary(progress: string, applied: readonly Step[]): string {
  const [first, ...more] = applied;
  if (!first) return progress;
  return `${progress}; ${describeStep(first)}${more.length > 0 ? ` (+${more.length} more step(s))` : ''}`;
}
