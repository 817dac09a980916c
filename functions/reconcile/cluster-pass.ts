// One pass of the Redis side: observe every pod's Redis, plan with the engine, apply this
// plan's steps (at most one disruptive), then, on a converged cluster, live config, a phase of
// a password rotation and the next rolling restart. Each pass starts from a fresh observation (STYLE: many short passes).
import type { V1Service } from '@kubernetes/client-node';
import type { DefaultedSpec } from '../../shared/core/api/defaults.ts';
import { planCluster } from '../../shared/core/cluster/plan-cluster.ts';
import { isSafeToRestart } from '../../shared/core/cluster/restart-safety.ts';
import { describeStep, type Step } from '../../shared/core/cluster/steps.ts';
import { myselfOf, type Address, type Topology } from '../../shared/core/cluster/topology.ts';
import { guardsToLift } from '../../shared/core/cluster/write-guard.ts';
import { toDesiredCluster } from '../../shared/core/reconcile/desired-cluster.ts';
import type { ObservedClaim, ObservedPod } from '../../shared/core/reconcile/observed.ts';
import type { EnginePass } from '../../shared/core/reconcile/plan-kube.ts';
import { planRollout } from '../../shared/core/reconcile/rollout.ts';
import { effectiveConfig, liveSettable } from '../../shared/core/resources/redis-conf.ts';
import { podCount } from '../../shared/core/resources/statefulset.ts';
import type { RotationPlan } from '../../shared/core/reconcile/rotation.ts';
import { planCertificateReload, type CertificatePlan } from '../../shared/core/reconcile/tls-reload.ts';
import { MONITOR_USER } from '../../shared/core/resources/monitor-user.ts';
import { applyStep } from '../../shared/io/redis/apply.ts';
import { command, type NodePool } from '../../shared/io/redis/connection.ts';
import { ensureMonitorUser } from '../../shared/io/redis/monitor-user.ts';
import { describeRotationStep, rotatePassword, type PasswordRotation } from '../../shared/io/redis/auth-rotate.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { observeCertificates, reloadCertificates } from '../../shared/io/redis/tls.ts';
import type { Logger } from '../../shared/io/log.ts';
import type { Recorder } from './events.ts';
import { applyLiveConfig } from './live-config.ts';
import type { TlsAccess } from './tls.ts';

export interface ClusterPassInput {
  readonly spec: DefaultedSpec;
  readonly pods: readonly ObservedPod[];
  readonly claims: readonly ObservedClaim[];
  /** spec.externalAccess: the nodes' Services, whose addresses the nodes announce. */
  readonly externalServices?: readonly V1Service[];
  readonly updateRevision: string | undefined;
  readonly pool: NodePool;
  readonly log: Logger;
  readonly events: Recorder;
  readonly now: number;
  /** Restarts a pod (deletes it; the StatefulSet recreates it from the new template). */
  readonly restartPod: (name: string) => Promise<void>;
  readonly maxSlotsPerStep: number;
  /** The run's signal: aborted, the pass stops between steps and between MIGRATE batches. */
  readonly signal: AbortSignal;
  /** Throws when the run no longer owns its key; checked before each disruptive step. */
  readonly assertOwner: () => Promise<void>;
  /** The password the nodes should hold, and the operator's record of the one in force. */
  readonly rotation?: PasswordRotation;
  /** The monitoring user's password hash (monitor-user.ts): set live on nodes that lack it. */
  readonly monitorHash?: string;
  /** spec.tls: the certificate the nodes should serve (a renewed one is reloaded live). */
  readonly tls?: TlsAccess;
  /** Why slots must not move and pods not restart this pass (a backup in progress). */
  readonly hold?: string;
}

export interface ClusterPassResult extends EnginePass {
  readonly rotation?: RotationPlan;
  readonly certificates?: CertificatePlan;
}

/** The Event each step kind records; none for the bootstrap's epochs and meets (addSlots tells). */
const reasonOf: Record<Step['kind'], string | undefined> = {
  setConfigEpoch: undefined,
  addSlots: 'AssigningSlots',
  meet: undefined,
  announce: 'AnnouncingAddress',
  replicate: 'AttachingReplica',
  migrate: 'MigratingSlots',
  closeSlots: 'ClosingSlots',
  forget: 'ForgettingNode',
  reset: 'ResettingNode',
  failover: 'FailingOver',
};

export async function runClusterPass(input: ClusterPassInput): Promise<ClusterPassResult> {
  const desired = toDesiredCluster(input.spec, input.pods, input.claims, input.externalServices);
  // 1: observe and plan
  const topology = await observe(desired.pods, input.pool);
  const plan = planCluster(desired, topology, input.now, {
    maxSlotsPerStep: input.maxSlotsPerStep,
    ...(input.hold ? { holdSlotMoves: input.hold } : {}),
  });
  input.log.info(
    {
      phase: plan.progress.phase,
      steps: plan.steps.map((s) => s.kind),
      problems: plan.problems.map((p) => p.code),
      converged: plan.converged,
    },
    plan.progress.message,
  );
  // 1b: lift the restart guard of nodes whose role the cluster agrees on (write-guard.ts), from
  // this observation, before any step changes it (a migration into such a node needs its writes)
  await liftWriteGuards(input, topology);
  // 2: apply this plan's steps, in order
  const applied: Step[] = [];
  const guard = { log: input.log, signal: input.signal, assertOwner: input.assertOwner };
  for (const step of plan.steps) {
    await applyStep(input.pool, step, guard);
    applied.push(step);
    const reason = reasonOf[step.kind];
    if (reason) await input.events.normal(reason, describeStep(step));
  }
  const roleOf = (pod: string) => {
    const view = topology.views.find((v) => v.pod === pod);
    return view ? (myselfOf(view).role === 'master' ? ('master' as const) : ('replica' as const)) : undefined;
  };
  const converged = plan.converged && applied.length === 0;
  // 2b: a renewed certificate, whatever else is under way (an expiring one cannot wait)
  const certificates = input.tls ? await renewCertificates(input, input.tls, desired.pods) : undefined;
  // 3: live config and the monitoring user on a settled cluster
  if (converged) {
    const changed = await applyLiveConfig(
      input.pool,
      desired.pods.map((p) => p.address),
      liveSettable(effectiveConfig(input.spec.config, input.spec.tls)),
    );
    if (changed.length > 0)
      await input.events.normal(
        'ConfigApplied',
        `applied ${changed.join(', ')} with CONFIG SET on every node, no restart`,
      );
    if (input.monitorHash) {
      const set = await ensureMonitorUser(
        input.pool,
        desired.pods.map((p) => p.address),
        input.monitorHash,
      );
      if (set.length > 0)
        await input.events.normal('MonitorUserSet', `set the monitoring user ${MONITOR_USER} on ${set.length} node(s)`);
    }
  }
  // 4: password rotation on a settled cluster (no restart: ACL users hold two passwords)
  let rotation: RotationPlan | undefined;
  if (converged && input.rotation) {
    const nodes = desired.pods.map((p) => ({ name: p.name, address: p.address }));
    const result = await rotatePassword(input.pool, nodes, input.rotation, input.now);
    rotation = result.plan;
    for (const step of result.applied) await input.events.normal('PasswordRotation', describeRotationStep(step));
  }
  // 5: the next rolling restart, one pod a pass, never during a rotation or a backup
  const rollout = planRollout({
    pods: input.pods,
    updateRevision: input.updateRevision,
    expectedPods: podCount(input.spec),
    clusterConverged: converged && !rotation?.rotating,
    ...(input.hold ? { hold: input.hold } : {}),
    roleOf,
  });
  if (rollout.kind === 'restart') {
    const safety = isSafeToRestart(rollout.pod, desired, topology, input.now);
    if (!safety.safe && safety.failover) {
      await applyStep(input.pool, safety.failover, guard);
      await input.events.normal('FailingOver', `${describeStep(safety.failover)} before restarting it`);
      applied.push(safety.failover);
    } else {
      input.signal.throwIfAborted();
      await input.assertOwner();
      await input.restartPod(rollout.pod);
      await input.events.normal(
        'RollingUpdate',
        `restarting ${rollout.pod} (${rollout.role}) with the new pod template; ${rollout.outdated - 1} more to go`,
      );
    }
  }
  return {
    plan,
    topology,
    applied,
    rollout,
    ...(rotation ? { rotation } : {}),
    ...(certificates?.pending ? { certificates } : {}),
  };
}

/** CONFIG SET min-replicas-to-write back to the spec's value where the restart guard may go. */
async function liftWriteGuards(input: ClusterPassInput, topology: Topology): Promise<void> {
  const wanted = Number(effectiveConfig(input.spec.config, input.spec.tls)['min-replicas-to-write'] ?? 0);
  for (const lift of guardsToLift(topology, wanted)) {
    try {
      await command(input.pool, lift.address, 'CONFIG SET min-replicas-to-write', [
        'CONFIG',
        'SET',
        'min-replicas-to-write',
        String(wanted),
      ]);
      await input.events.normal(
        'WriteGuardLifted',
        `${lift.pod} takes writes without a replica again: ${lift.why} (it came back with min-replicas-to-write 1)`,
      );
    } catch (error) {
      input.log.warn({ node: lift.pod, err: (error as Error).message }, 'restart guard not lifted; retrying next pass');
    }
  }
}

/**
 * Reloads the nodes that serve another certificate than the Secret's, then looks again: a node
 * whose files the kubelet has not rewritten yet still serves the old one, and stays pending.
 */
async function renewCertificates(
  input: ClusterPassInput,
  tls: TlsAccess,
  pods: readonly { readonly name: string; readonly address: Address }[],
): Promise<CertificatePlan> {
  const nodes = pods.map((p) => ({ name: p.name, address: p.address }));
  const first = planCertificateReload(tls.fingerprint, await observeCertificates(nodes, tls.connection));
  if (first.reload.length === 0) return first;
  for (const node of nodes.filter((n) => first.reload.includes(n.name)))
    await reloadCertificates(input.pool, node.address).catch((error: Error) =>
      input.log.warn({ node: node.name, err: error.message }, 'TLS certificate reload refused; retrying next pass'),
    );
  const after = planCertificateReload(tls.fingerprint, await observeCertificates(nodes, tls.connection));
  const reloaded = first.reload.filter((n) => !after.reload.includes(n));
  if (reloaded.length > 0)
    await input.events.normal(
      'CertificateReloaded',
      `reloaded the renewed TLS certificate on ${reloaded.length} node(s) without a restart: ${reloaded.join(', ')}`,
    );
  return after;
}
