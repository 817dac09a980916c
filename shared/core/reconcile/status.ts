// The status a user reads: conditions Ready / Progressing / Degraded with reasons and messages,
// the phase, shards with their nodes and slots, ready counts and the operation in flight.
// Pure: from the spec, what was observed and what this pass decided. Transition times are kept
// while a condition's status does not change, so an unchanged cluster writes no status.
import type { Condition } from '../api/k8s-types.ts';
import type { OperationType, Phase, RedisClusterStatus, ShardStatus } from '../api/v1beta1.ts';
import { podSelector, SLOT_COUNT } from '../api/group.ts';
import { assertNever } from '../assert-never.ts';
import { isBlocking, type ClusterPlan, type Phase as PlanPhase } from '../cluster/plan-types.ts';
import { myselfOf, type NodeView, type Topology } from '../cluster/topology.ts';
import type { ObservedPod } from './observed.ts';

export interface StatusInput {
  readonly name: string;
  readonly generation: number;
  readonly previous: RedisClusterStatus | undefined;
  readonly expectedPods: number;
  readonly pods: readonly ObservedPod[];
  readonly topology: Topology | undefined;
  readonly plan: ClusterPlan | undefined;
  /** What this pass is doing beyond the cluster plan (a rolling restart, waiting for pods). */
  readonly activity?: { readonly type: OperationType; readonly message: string };
  readonly paused: boolean;
  /** A failure of this pass, for Degraded (already free of secrets). */
  readonly error?: string;
  readonly now: string;
}

export function computeStatus(input: StatusInput): RedisClusterStatus {
  const shards = shardsOf(input.topology, input.pods);
  const slotsCovered = shards.reduce((n, s) => n + (s.slots ?? []).reduce((m, r) => m + r.end - r.start + 1, 0), 0);
  const readyNodes = input.pods.filter((p) => p.ready && !p.terminating).length;
  const readyMasters = shards.filter((s) => s.master?.ready).length;
  const readyReplicas = shards.reduce((n, s) => n + (s.replicas ?? []).filter((r) => r.ready).length, 0);
  const operation = operationOf(input);
  const problems = input.plan?.problems ?? [];
  const converged =
    !!input.plan?.converged && !operation && readyNodes === input.expectedPods && slotsCovered === SLOT_COUNT;
  // Fewer masters than the spec while new pods are still coming (a scale-out) is progress.
  const degraded = problems.filter(
    (p) => isBlocking(p) && !(p.code === 'NotEnoughPods' && readyNodes < input.expectedPods),
  );
  const everReady = wasFormed(input.previous);

  const conditions: Condition[] = [
    condition(
      'Ready',
      converged,
      readyReason(converged, input.paused, !!operation),
      converged
        ? `all ${input.expectedPods} nodes ready, ${SLOT_COUNT} slots covered`
        : readinessMessage(input, readyNodes, slotsCovered),
    ),
    condition(
      'Progressing',
      !!operation && !input.paused,
      operation ? operationReason[operation.type] : input.paused ? 'Paused' : 'Idle',
      operation?.progress ?? (input.paused ? 'reconciliation is paused (spec.paused)' : 'no operation in progress'),
    ),
    condition(
      'Degraded',
      degraded.length > 0 || !!input.error,
      degraded[0]?.code ?? (input.error ? 'ReconcileError' : 'AsExpected'),
      [...degraded.map((p) => p.message), ...(input.error ? [input.error] : [])].join('; ') || 'no problem seen',
    ),
  ].map((c) => keepTransition(c, input.previous?.conditions, input.now, input.generation));

  const phase = phaseOf(input.paused, converged, degraded.length > 0 || !!input.error, everReady, operation?.type);
  const master = shards.find((s) => s.master?.pod)?.master?.pod;
  return {
    observedGeneration: input.generation,
    phase,
    conditions,
    shards,
    slotsCovered,
    readyMasters,
    readyReplicas,
    readyNodes,
    selector: podSelector(input.name),
    ...(operation ? { operation } : {}),
    ...(master ? { masterPod: master } : {}),
  };
}

function readyReason(converged: boolean, paused: boolean, busy: boolean): string {
  if (converged) return 'ClusterReady';
  if (paused) return 'Paused';
  return busy ? 'OperationInProgress' : 'NotReady';
}

/** The phase during an operation on a cluster that was formed and shows no problem. */
const phaseDuring: Record<OperationType, Phase> = {
  Create: 'Running',
  ScaleOut: 'Scaling',
  ScaleIn: 'Scaling',
  AddReplicas: 'Scaling',
  RemoveReplicas: 'Scaling',
  RollingUpdate: 'Updating',
  Failover: 'Running',
  Heal: 'Running',
  ResizeVolumes: 'Updating',
  RotatePassword: 'Updating',
  ReloadCertificates: 'Updating',
};

function phaseOf(
  paused: boolean,
  converged: boolean,
  failing: boolean,
  everReady: boolean,
  operation: OperationType | undefined,
): Phase {
  if (paused) return 'Paused';
  if (converged) return 'Running';
  if (!everReady) return 'Creating';
  if (failing) return 'Degraded';
  return operation ? phaseDuring[operation] : 'Running';
}

/** The phases only a cluster that was formed takes. */
const formedPhase: Record<Phase, boolean> = {
  Pending: false,
  Creating: false,
  Running: true,
  Scaling: true,
  Updating: true,
  Degraded: true,
  Failed: false,
  Paused: false,
  Deleting: false,
};

/** The cluster was Ready once: only such a cluster takes these phases, so later passes of a
 * scale-out, a rolling update or a failure (Ready False by then) still know it. */
export function wasFormed(previous: RedisClusterStatus | undefined): boolean {
  return (
    !!previous?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ||
    (previous?.phase !== undefined && formedPhase[previous.phase])
  );
}

/** What waiting for pods means: creating a new cluster, adding masters, or healing. */
export function podsActivityType(previous: RedisClusterStatus | undefined, masters: number): OperationType {
  if (!wasFormed(previous)) return 'Create';
  return (previous?.shards?.length ?? masters) < masters ? 'ScaleOut' : 'Heal';
}

function operationOf(input: StatusInput): RedisClusterStatus['operation'] {
  const p = input.plan?.progress;
  const fromPlan =
    !p || p.phase === 'ready'
      ? undefined
      : { type: operationOfPhase(p.phase, input.previous), message: migrationMessage(input, p.message, p.slotsToMove) };
  const current = input.activity ?? fromPlan;
  if (!current) return undefined;
  const previous = input.previous?.operation;
  return {
    type: current.type,
    progress: current.message,
    startedAt: previous?.type === current.type && previous.startedAt ? previous.startedAt : input.now,
  };
}

/** The operation a busy plan phase is part of (waiting, before any shard exists, is still Create). */
function operationOfPhase(phase: Exclude<PlanPhase, 'ready'>, previous: RedisClusterStatus | undefined): OperationType {
  switch (phase) {
    case 'bootstrapping':
      return 'Create';
    case 'waiting':
      return previous?.shards?.length ? 'Heal' : 'Create';
    case 'migrating':
      return 'ScaleOut';
    case 'removing':
      return 'ScaleIn';
    case 'replicating':
      return 'AddReplicas';
    case 'joining':
    case 'resuming':
    case 'healing':
      return 'Heal';
    default:
      return assertNever(phase, 'plan phase');
  }
}

/** "migrating slots: 1200/5461": moved so far of the most seen to move in this operation. */
function migrationMessage(input: StatusInput, message: string, toMove: number | undefined): string {
  if (toMove === undefined) return message;
  const last = /^migrating slots: (\d+)\/(\d+)$/.exec(input.previous?.operation?.progress ?? '');
  const total = Math.max(toMove, Number(last?.[2] ?? 0));
  return `migrating slots: ${total - toMove}/${total}`;
}

const operationReason: Record<OperationType, string> = {
  Create: 'Creating',
  ScaleOut: 'ScalingOut',
  ScaleIn: 'ScalingIn',
  AddReplicas: 'AddingReplicas',
  RemoveReplicas: 'RemovingReplicas',
  RollingUpdate: 'RollingUpdate',
  Failover: 'FailingOver',
  Heal: 'Healing',
  ResizeVolumes: 'ResizingVolumes',
  RotatePassword: 'RotatingPassword',
  ReloadCertificates: 'ReloadingCertificates',
};

function readinessMessage(input: StatusInput, readyNodes: number, slots: number): string {
  if (input.paused) return 'reconciliation is paused (spec.paused)';
  return `${readyNodes}/${input.expectedPods} nodes ready, ${slots}/${SLOT_COUNT} slots covered${input.plan ? `: ${input.plan.progress.message}` : ''}`;
}

function condition(type: string, status: boolean, reason: string, message: string): Condition {
  return { type, status: status ? 'True' : 'False', reason, message: message.slice(0, 1000), lastTransitionTime: '' };
}

function keepTransition(
  c: Condition,
  previous: readonly Condition[] | undefined,
  now: string,
  generation: number,
): Condition {
  const old = previous?.find((p) => p.type === c.type);
  return {
    ...c,
    lastTransitionTime: old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now,
    observedGeneration: generation,
  };
}

/** What a node announces now (spec.externalAccess), where clients outside reach it. */
const external = (view: NodeView) =>
  view.announcing ? { externalAddress: `${view.announcing.ip}:${view.announcing.port}` } : {};

/** Shards as the cluster reports them: each master that owns slots, with its replicas. */
export function shardsOf(topology: Topology | undefined, pods: readonly ObservedPod[]): ShardStatus[] {
  if (!topology || topology.views.length === 0) return [];
  const ready = new Map(pods.map((p) => [p.name, p.ready]));
  const views = topology.views;
  const masters = views
    .filter((v) => myselfOf(v).role === 'master' && myselfOf(v).slots.length > 0)
    .sort((a, b) => (myselfOf(a).slots[0]?.start ?? 0) - (myselfOf(b).slots[0]?.start ?? 0));
  return masters.map((m, index) => {
    const me = myselfOf(m);
    const replicas = views.filter((v) => myselfOf(v).masterId === m.id);
    const slots = me.slots.map((r) => ({ start: r.start, end: r.end }));
    return {
      index,
      name: `shard-${index}`,
      master: { pod: m.pod, nodeId: m.id, ip: m.address.ip, ...external(m), ready: ready.get(m.pod) ?? false },
      replicas: replicas.map((r) => ({
        pod: r.pod,
        nodeId: r.id,
        ip: r.address.ip,
        ...external(r),
        ready: (ready.get(r.pod) ?? false) && !!r.replication.linkUp,
      })),
      slots,
    };
  });
}

/**
 * While paused nothing is observed, so what was last seen stays (shards, counts, Ready and
 * Degraded as they were) and only Progressing and the phase say that changes wait.
 */
export function pausedStatus(
  previous: RedisClusterStatus | undefined,
  generation: number,
  now: string,
): RedisClusterStatus {
  const kept = (previous?.conditions ?? []).filter((c) => c.type !== 'Progressing');
  const progressing = keepTransition(
    condition(
      'Progressing',
      false,
      'Paused',
      'reconciliation is paused (spec.paused): changes wait until it is unpaused',
    ),
    previous?.conditions,
    now,
    generation,
  );
  const { operation: _operation, ...rest } = previous ?? {};
  return { ...rest, observedGeneration: generation, phase: 'Paused', conditions: [...kept, progressing] };
}

/**
 * A pass that failed (the error policy): what was last seen stays, Degraded says why, and a
 * cluster that was formed shows the Degraded phase. The next pass that gets through
 * recomputes everything.
 */
export function failedStatus(
  previous: RedisClusterStatus | undefined,
  generation: number,
  message: string,
  now: string,
): RedisClusterStatus {
  const degraded = keepTransition(
    condition('Degraded', true, 'ReconcileError', message),
    previous?.conditions,
    now,
    generation,
  );
  const kept = (previous?.conditions ?? []).filter((c) => c.type !== 'Degraded');
  return {
    ...previous,
    phase: wasFormed(previous) ? 'Degraded' : (previous?.phase ?? 'Creating'),
    conditions: [...kept, degraded],
  };
}
