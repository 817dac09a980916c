// planCluster(desired, observed, now): the next steps for one pass, pure. Phases run in order
// and the first that has work returns it, so each plan starts from a fresh observation and
// holds at most one disruptive step (migrate or failover); every step's preconditions are
// checked against what was observed, and what steps cannot fix is returned as problems.
import { REQUEUE_GOSSIP_MS, REQUEUE_SETTLING_MS, REQUEUE_WAITING_MS } from '../outcome.ts';
import type { DesiredCluster, PlanOptions } from './desired.ts';
import { planAnnounce } from './plan-announce.ts';
import { isFresh, planBootstrap } from './plan-bootstrap.ts';
import { toPlanContext, type PlanContext } from './plan-context.ts';
import { planCoverage } from './plan-coverage.ts';
import { planFailures } from './plan-failures.ts';
import { planHandoff } from './plan-handoff.ts';
import { planForgetGhosts, planMeet } from './plan-membership.ts';
import { planRebalance } from './plan-rebalance.ts';
import { planRemoval } from './plan-removal.ts';
import { planReplicas } from './plan-replicas.ts';
import { planResume } from './plan-resume.ts';
import { isBlocking, type ClusterPlan, type Phase, type Problem } from './plan-types.ts';
import { isDisruptive, type Step } from './steps.ts';
import type { Topology } from './topology.ts';

export interface ClusterPlanOptions extends PlanOptions {
  /** Most slots one migrate step moves (bounds the duration of a pass). */
  readonly maxSlotsPerStep?: number;
  /**
   * Why slots must not move between shards now (a backup in progress reads one shard at a
   * time): no migrate step is planned, neither a rebalance nor a resumed migration, and the
   * plan waits where it would move slots. Healing, joining and replicas go on.
   */
  readonly holdSlotMoves?: string;
}

export function planCluster(
  desired: DesiredCluster,
  observed: Topology,
  now: number,
  options: ClusterPlanOptions = {},
): ClusterPlan {
  const ctx = toPlanContext(desired, observed, now, options);
  // Each phase returns the problems it found; they add up in phase order.
  const problems: Problem[] = [];
  for (const u of observed.unreachable) {
    const pod = desired.pods.find((p) => p.name === u.pod);
    if (!pod?.removing)
      problems.push({
        code: 'NodeUnreachable',
        message: `${u.pod} (${u.address.ip}:${u.address.port}) does not answer: ${u.reason}`,
      });
  }
  const removal = planRemoval(ctx);
  problems.push(...removal.problems);
  const result = (phase: Phase, steps: Step[], message: string, extra: Partial<ClusterPlan> = {}): ClusterPlan => {
    if (steps.filter(isDisruptive).length > 1)
      throw new Error(`plan holds ${steps.filter(isDisruptive).length} disruptive steps`);
    const converged = steps.length === 0 && !problems.some(isBlocking) && phase === 'ready';
    return {
      steps,
      problems: problems,
      removable: removal.removable,
      converged,
      progress: { phase, message },
      requeueAfterMs: converged ? 0 : steps.length > 0 ? 0 : REQUEUE_WAITING_MS,
      ...extra,
    };
  };
  if (observed.views.length === 0) return result('waiting', [], 'no Redis pod answers');
  // 0: each node announces the address the cluster must know it by, before anyone meets it
  const announce = planAnnounce(ctx);
  problems.push(...announce.problems);
  if (announce.steps.length > 0) return result('joining', announce.steps, "announcing the nodes' addresses");

  // 1: a fresh cluster is bootstrapped in one pass
  if (isFresh(ctx)) {
    const bootstrap = planBootstrap(ctx);
    problems.push(...bootstrap.problems);
    if (bootstrap.steps === 'wait')
      return result(
        'waiting',
        [],
        bootstrap.problems.length > 0
          ? 'not bootstrapping: a pod is in another cluster'
          : 'waiting for every pod to answer before bootstrapping',
      );
    if (bootstrap.steps.length > 0) return result('bootstrapping', bootstrap.steps, 'bootstrapping the cluster');
  }
  // 2: interrupted migrations come before anything else
  const resume = planResume(ctx);
  problems.push(...resume.problems);
  const resumeSteps = options.holdSlotMoves ? resume.steps.filter((s) => s.kind !== 'migrate') : resume.steps;
  const resumeHeld = resumeSteps.length < resume.steps.length;
  if (resumeSteps.length > 0)
    return result('resuming', resumeSteps, `finishing ${ctx.state.openSlots.length} interrupted slot move(s)`);
  // 3: membership: join strangers and moved nodes, forget ghosts
  const meet = planMeet(ctx);
  problems.push(...meet.problems);
  const membership = [...meet.steps, ...planForgetGhosts(ctx)];
  if (membership.length > 0) return result('joining', membership, 'updating cluster membership');
  // 4: failed masters
  const failures = planFailures(ctx);
  problems.push(...failures.problems);
  if (failures.steps === 'wait')
    return result('waiting', [], 'a master that owns slots is down', { requeueAfterMs: REQUEUE_WAITING_MS });
  if (failures.steps.length > 0) return result('healing', failures.steps, 'promoting a replica of a failed master');
  // 5: uncovered slots (only when nothing can be lost)
  const coverage = planCoverage(ctx);
  problems.push(...coverage.problems);
  if (coverage.steps.length > 0) return result('healing', coverage.steps, 'assigning uncovered slots');
  // 6: masters on leaving pods hand their slots to a replica that stays, before any drain
  const handoff = planHandoff(ctx);
  if (handoff === 'wait')
    return result(
      'removing',
      [],
      'waiting for a synced replica and agreeing views to move a master off a leaving pod',
      { requeueAfterMs: REQUEUE_SETTLING_MS },
    );
  if (handoff) return result('removing', [handoff], 'moving a master off a leaving pod');
  // 7: replicas that can attach without disruption
  const replicas = planReplicas(ctx);
  problems.push(...replicas.problems);
  if (replicas.steps.length > 0)
    return result('replicating', replicas.steps, `attaching ${replicas.steps.length} replica(s)`);
  // 8: rebalance and drain need every pod joined, views that agree and every member healthy
  const outside = desired.pods.filter((p) => !p.removing && !ctx.state.members.some((v) => v.pod === p.name));
  if (outside.length > 0)
    return result('joining', [], `waiting for ${outside.length} pod(s) to join the cluster`, {
      requeueAfterMs: REQUEUE_GOSSIP_MS,
    });
  if (ctx.masters.length < desired.masters)
    problems.push({
      code: 'NotEnoughPods',
      message: `${ctx.masters.length} of ${desired.masters} masters: no empty pod left to make a master`,
    });
  const held = () =>
    result('waiting', [], `slot moves wait: ${options.holdSlotMoves}`, { requeueAfterMs: REQUEUE_WAITING_MS });
  // an interrupted migration left open while slot moves are held is why the views disagree
  if (resumeHeld) return held();
  const notOk = ctx.state.members.find((v) => v.info.state !== 'ok');
  if (!ctx.state.consistent || notOk) {
    // A removal's FORGET that missed a member is itself what keeps the views apart: finish it,
    // for ids no view gives a slot to (the removal phase checked no staying member follows them).
    const unfinished = removal.steps.filter(
      (s) =>
        s.kind === 'forget' && !observed.views.some((v) => v.entries.some((e) => e.id === s.id && e.slots.length > 0)),
    );
    if (unfinished.length > 0)
      return result('removing', unfinished, `removing ${unfinished.length} node(s) from the cluster`);
    const why = ctx.state.disagreement ?? `${notOk?.pod} reports cluster_state:${notOk?.info.state}`;
    return result('waiting', [], `waiting for the nodes to agree on the slot layout: ${why}`, {
      requeueAfterMs: REQUEUE_SETTLING_MS,
    });
  }
  const rebalance = planRebalance(ctx, options.maxSlotsPerStep);
  if (options.holdSlotMoves && rebalance.step) return held();
  if (rebalance.step) {
    const inStep = rebalance.step.kind === 'migrate' ? rebalance.step.moves.reduce((n, m) => n + m.slots.length, 0) : 0;
    return result(
      ctx.drain.size > 0 ? 'removing' : 'migrating',
      [rebalance.step],
      `migrating slots: ${rebalance.slotsToMove} to move`,
      {
        progress: {
          phase: ctx.drain.size > 0 ? 'removing' : 'migrating',
          message: `migrating slots: ${rebalance.slotsToMove} to move`,
          slotsInStep: inStep,
          slotsToMove: rebalance.slotsToMove,
        },
      },
    );
  }
  // 9: forget and reset removed nodes
  if (removal.steps.length > 0)
    return result('removing', removal.steps, `removing ${removal.steps.length} node(s) from the cluster`);
  // 10: one replica moved away from its master's node or zone
  if (replicas.disruptive) return result('replicating', [replicas.disruptive], 'moving a replica away from its master');
  // 11: ready means every replica holds a synced copy (one that never synced cannot fail over)
  const syncing = ctx.state.members.filter(
    (v) => v.replication.role === 'replica' && (!v.replication.linkUp || v.replication.syncInProgress),
  );
  if (syncing.length > 0)
    return result('replicating', [], `${syncing.length} replica(s) still syncing`, {
      requeueAfterMs: REQUEUE_SETTLING_MS,
    });
  return result('ready', [], problems.length > 0 ? problems.map((p) => p.message).join('; ') : 'cluster is ready');
}

export type { PlanContext };
