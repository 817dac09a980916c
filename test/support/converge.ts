// Passes of observe -> plan -> apply until the plan converges, for tests and benchmarks
// (the reconciler runs one pass per queue job instead). Bounded by passes and a deadline.
import type { DesiredCluster } from '../../shared/core/cluster/desired.ts';
import { FailoverTimeoutError, SlotNotEmptyError, StaleObservationError } from '../../shared/core/cluster/errors.ts';
import { planCluster, type ClusterPlanOptions } from '../../shared/core/cluster/plan-cluster.ts';
import type { ClusterPlan } from '../../shared/core/cluster/plan-types.ts';
import { applyStep, type ApplyOptions } from '../../shared/io/redis/apply.ts';
import type { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';

export interface ConvergeOptions extends ApplyOptions {
  readonly plan?: ClusterPlanOptions;
  readonly maxPasses?: number;
  readonly deadlineMs?: number;
  /** Stop when this holds for a plan (default: converged). */
  readonly until?: (plan: ClusterPlan) => boolean;
  readonly onPlan?: (plan: ClusterPlan) => void;
}

export async function converge(
  pool: NodePool,
  desired: DesiredCluster,
  options: ConvergeOptions = {},
): Promise<ClusterPlan> {
  const deadline = Date.now() + (options.deadlineMs ?? 120_000);
  const until = options.until ?? ((p: ClusterPlan) => p.converged);
  let last: ClusterPlan | undefined;
  for (let pass = 0; pass < (options.maxPasses ?? 500) && Date.now() < deadline; pass++) {
    const topology = await observe(desired.pods, pool);
    last = planCluster(desired, topology, Date.now(), options.plan);
    options.onPlan?.(last);
    if (until(last)) return last;
    try {
      for (const step of last.steps) await applyStep(pool, step, options);
    } catch (error) {
      // What the reconciler retries on its next pass (a failover Redis abandoned, keys that
      // arrived mid-move, a plan overtaken by gossip) is retried here too; the rest is thrown.
      if (!(
        error instanceof FailoverTimeoutError ||
        error instanceof SlotNotEmptyError ||
        error instanceof StaleObservationError
      ))
        throw error;
    }
    if (last.steps.length === 0) await new Promise((r) => setTimeout(r, Math.min(last?.requeueAfterMs || 200, 500)));
  }
  throw new Error(
    `cluster did not converge: ${last ? `${last.progress.phase}: ${last.progress.message}; ${last.problems.map((p) => p.code).join(',')}` : 'no plan'}`,
  );
}
