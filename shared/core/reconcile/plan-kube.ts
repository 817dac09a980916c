// The Kubernetes side of a reconcile, planned purely, as ../cluster/plan-cluster.ts plans the
// Redis side: from the RedisCluster and what was observed, the steps, the status and when to
// look again. Two halves, because one pass of the Redis engine sits between them:
//   planBeforeEngine  1: paused  2: a named auth (2b: TLS) Secret missing  3: the children
//                     4: the generated Secret just created  5: a new cluster waits for its pods
//   planAfterEngine   6: node ids on claims  7: scale-in done  8: pods on lost nodes
//                     8b: the nodes' external Services no node needs
//                     9: status  10: when to look again
import type { DefaultedSpec } from '../api/defaults.ts';
import type { RedisCluster, RedisClusterStatus } from '../api/v1beta1.ts';
import { assertNever } from '../assert-never.ts';
import type { ClusterPlan } from '../cluster/plan-types.ts';
import type { Step } from '../cluster/steps.ts';
import type { Topology } from '../cluster/topology.ts';
import {
  done,
  noted,
  requeueAfter,
  REQUEUE_AFTER_STEPS_MS,
  REQUEUE_SETTLING_MS,
  REQUEUE_USER_ACTION_MS,
  REQUEUE_WAITING_MS,
  type Outcome,
} from '../outcome.ts';
import { externalServicesToDelete } from '../resources/external-access.ts';
import { podCount } from '../resources/statefulset.ts';
import { snapshotOf } from '../run-note.ts';
import { claimsToRecord } from './desired-cluster.ts';
import type { KubeStep } from './kube-steps.ts';
import { nextLostPodCheck, podsToForceDelete } from './lost-pods.ts';
import type { Observed } from './observed.ts';
import { volumePlanOf } from './volumes.ts';
import { passSummary } from './pass-summary.ts';
import type { RolloutDecision } from './rollout.ts';
import type { RotationPlan } from './rotation.ts';
import type { CertificatePlan } from './tls-reload.ts';
import { statefulSetReplicas } from './scale.ts';
import { computeStatus, pausedStatus, podsActivityType, type StatusInput } from './status.ts';

export interface KubePlanInput {
  readonly cluster: RedisCluster;
  readonly spec: DefaultedSpec;
  readonly observed: Observed;
  /** The auth Secret the pods read (named by the spec, or generated). */
  readonly auth: { readonly name: string; readonly key: string; readonly external: boolean };
  /** The observed auth Secret holds a password. */
  readonly hasPassword: boolean;
  /** spec.tls names a Secret that is missing or unusable: why (no data). */
  readonly tlsProblem?: string;
  readonly now: number;
}

/** What one pass of the Redis engine did (functions/reconcile/cluster-pass.ts). */
export interface EnginePass {
  readonly plan: ClusterPlan;
  readonly topology: Topology;
  readonly applied: readonly Step[];
  readonly rollout: RolloutDecision;
  /** The password rotation's pass, when one is under way (rotation.ts). */
  readonly rotation?: RotationPlan;
  /** A renewed certificate some node does not serve yet (tls-reload.ts). */
  readonly certificates?: CertificatePlan;
}

/** The end of a pass: its steps in order, then its status (written when it changed), then the outcome. */
export interface KubePlan {
  readonly steps: readonly KubeStep[];
  readonly status?: RedisClusterStatus;
  readonly outcome: Outcome;
}

export type BeforeEngine =
  | ({ readonly kind: 'stop' } & KubePlan)
  | { readonly kind: 'engine'; readonly steps: readonly KubeStep[]; readonly replicas: number };

export function planBeforeEngine(input: KubePlanInput): BeforeEngine {
  const { spec, observed, auth, cluster } = input;
  const base = statusBase(input);
  // 1: paused: report, change nothing
  if (spec.paused) {
    const status = pausedStatus(cluster.status, base.generation, base.now);
    return stop([], status, done(), 'paused (spec.paused)');
  }
  // 2: a Secret the spec names is the user's to create
  if (auth.external && !input.hasPassword) {
    const message = `Secret ${auth.name} with key ${auth.key} (spec.auth.secretRef) was not found`;
    const status = computeStatus({ ...base, topology: undefined, plan: undefined, paused: false, error: message });
    const warn: KubeStep = { kind: 'warn', reason: 'AuthSecretMissing', message };
    return stop([warn], status, requeueAfter(REQUEUE_USER_ACTION_MS), message);
  }
  // 2b: so is the TLS Secret spec.tls names (the pods cannot start without it)
  if (input.tlsProblem) {
    const status = computeStatus({
      ...base,
      topology: undefined,
      plan: undefined,
      paused: false,
      error: input.tlsProblem,
    });
    const warn: KubeStep = { kind: 'warn', reason: 'TLSSecretMissing', message: input.tlsProblem };
    return stop([warn], status, requeueAfter(REQUEUE_USER_ACTION_MS), input.tlsProblem);
  }
  // 3: children; the StatefulSet keeps nodes being drained until the engine lets them go
  const replicas = statefulSetReplicas(spec, observed, undefined);
  const steps: KubeStep[] = [{ kind: 'applyChildren', replicas }];
  // 4: the generated Secret was just created: the next pass reads its password
  if (!input.hasPassword)
    return {
      kind: 'stop',
      steps,
      outcome: noted(requeueAfter(REQUEUE_SETTLING_MS), { summary: 'created the auth Secret' }),
    };
  // 5: a new cluster is formed only once every pod is Ready, so the first layout is the whole
  // one (no migration right after creation)
  const formed = (cluster.status?.slotsCovered ?? 0) > 0 || (cluster.status?.shards?.length ?? 0) > 0;
  const readyPods = observed.pods.filter((p) => p.ready && !p.terminating).length;
  if (!formed && readyPods < base.expectedPods) {
    const message = `waiting for pods: ${readyPods}/${base.expectedPods} ready`;
    const status = computeStatus({
      ...base,
      topology: undefined,
      plan: undefined,
      paused: false,
      activity: { type: 'Create', message },
    });
    return stop(steps, status, requeueAfter(REQUEUE_SETTLING_MS), status.operation?.progress ?? 'waiting for pods');
  }
  return { kind: 'engine', steps, replicas };
}

export interface AfterEngineInput extends KubePlanInput {
  /** The StatefulSet's replicas as applied before the engine ran. */
  readonly replicas: number;
  readonly pass: EnginePass;
}

export function planAfterEngine(input: AfterEngineInput): KubePlan {
  const { spec, observed, pass, now } = input;
  // 6: node ids recorded on their volumes (a write only when a pod's id is new)
  const idOfPod = new Map(pass.topology.views.map((v) => [v.pod, v.id]));
  const steps: KubeStep[] = claimsToRecord(observed.claims, idOfPod).map(({ claim, nodeId }) => ({
    kind: 'annotateClaim',
    claim,
    nodeId,
  }));
  // 7: finished scale-in shrinks the StatefulSet
  const shrunk = statefulSetReplicas(spec, observed, pass.plan.removable, pass.plan.converged);
  if (shrunk !== input.replicas)
    steps.push({ kind: 'shrinkStatefulSet', replicas: shrunk, removed: input.replicas - shrunk });
  // 8: pods stuck on a lost node go once Redis holds their nodes failed (a cut-off kubelet's
  // Redis may still serve)
  for (const pod of podsToForceDelete(observed.pods, pass.topology, now)) steps.push({ kind: 'forceDeletePod', pod });
  // 8b: the nodes' Services of spec.externalAccess that no node needs (external-access.ts)
  const services = externalServicesToDelete({
    access: spec.externalAccess,
    statefulSet: input.cluster.metadata.name ?? '',
    podCount: podCount(spec),
    present: observed.pods.map((p) => p.name),
    services: (observed.children.externalServices ?? []).map((s) => s.metadata?.name ?? ''),
    announcementsCleared: announcementsCleared(observed, pass.topology),
  });
  if (services.length > 0) steps.push({ kind: 'deleteExternalServices', services });
  // 9: status; a volume still growing is reported, and looked at again (its resize ends with
  // no event the operator watches)
  const resizing = volumePlanOf(spec, observed).resizing;
  const activity = activityOf(input, resizing);
  const status = computeStatus({
    ...statusBase(input),
    topology: pass.topology,
    plan: pass.plan,
    paused: false,
    ...(activity ? { activity } : {}),
  });
  const summary = passSummary(status.operation?.progress ?? pass.plan.progress.message, pass.applied);
  // 10: when to look again
  return {
    steps,
    status,
    outcome: noted(nextPass(status, pass, input, resizing !== undefined), { summary, status: snapshotOf(status) }),
  };
}

/** Every running pod answered the engine, and none announces an address (spec.externalAccess removed). */
function announcementsCleared(observed: Observed, topology: Topology): boolean {
  const running = observed.pods.filter((p) => p.phase === 'Running' && !p.terminating && p.ip);
  const seen = new Set(topology.views.map((v) => v.pod));
  return running.every((p) => seen.has(p.name)) && topology.views.every((v) => !v.announcing);
}

/** What the pass is doing beyond the engine's plan: a rolling restart of a settled cluster, or pods not all Ready. */
function activityOf(input: AfterEngineInput, resizing: string | undefined): StatusInput['activity'] {
  const { rollout, plan } = input.pass;
  const rotating = input.pass.rotation?.rotating ? input.pass.rotation : undefined;
  if (rotating) return { type: 'RotatePassword', message: rotating.progress ?? 'rotating password' };
  const certificates = input.pass.certificates;
  if (certificates?.pending)
    return { type: 'ReloadCertificates', message: certificates.progress ?? 'reloading TLS certificates' };
  // volume growth first: while the StatefulSet is replaced, the rollout only waits for it
  if (resizing) return { type: 'ResizeVolumes', message: resizing };
  if (plan.converged) {
    switch (rollout.kind) {
      case 'restart':
        return { type: 'RollingUpdate', message: `rolling update: ${rollout.outdated} pod(s) to restart` };
      case 'wait': {
        const outdated = rollout.outdated > 0 ? `${rollout.outdated} pod(s) to restart, ` : '';
        return { type: 'RollingUpdate', message: `rolling update: ${outdated}${rollout.reason}` };
      }
      case 'none':
        break;
      default:
        return assertNever(rollout, 'rollout decision');
    }
  }
  const pods = input.observed.pods;
  const expected = podCount(input.spec);
  if (pods.length >= expected && pods.every((p) => p.ready)) return undefined;
  return {
    type: podsActivityType(input.cluster.status, input.spec.masters),
    message: `${pods.filter((p) => p.ready).length}/${expected} pods ready`,
  };
}

/**
 * Ready, not rolling and no volume resizing: done, unless a pod sits on a lost node (its force-delete is due at
 * the end of the grace period, and no event will come for it). Otherwise soon after steps,
 * else when the engine asked, never later than the next lost-pod check.
 */
function nextPass(status: RedisClusterStatus, pass: EnginePass, input: AfterEngineInput, resizing: boolean): Outcome {
  const lost = nextLostPodCheck(input.observed.pods, input.now);
  const rotation = pass.rotation?.rotating ? pass.rotation : undefined;
  if (rotation)
    return requeueAfter(
      rotation.steps.length > 0 ? REQUEUE_AFTER_STEPS_MS : (rotation.requeueAfterMs ?? REQUEUE_SETTLING_MS),
    );
  // the kubelet rewrites a renewed Secret's files on its own schedule: look again soon
  if (pass.certificates?.pending) return requeueAfter(REQUEUE_SETTLING_MS);
  const ready = status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  if (ready && pass.rollout.kind === 'none' && !resizing) return lost === undefined ? done() : requeueAfter(lost);
  const wanted = pass.applied.length > 0 ? REQUEUE_AFTER_STEPS_MS : pass.plan.requeueAfterMs || REQUEUE_WAITING_MS;
  return requeueAfter(Math.min(wanted, lost ?? Infinity));
}

function statusBase(input: KubePlanInput) {
  return {
    name: input.cluster.metadata.name ?? '',
    generation: input.cluster.metadata.generation ?? 0,
    previous: input.cluster.status,
    expectedPods: podCount(input.spec),
    pods: input.observed.pods,
    now: new Date(input.now).toISOString(),
  };
}

function stop(steps: KubeStep[], status: RedisClusterStatus, outcome: Outcome, summary: string): BeforeEngine {
  return { kind: 'stop', steps, status, outcome: noted(outcome, { summary, status: snapshotOf(status) }) };
}
