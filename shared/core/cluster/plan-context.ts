// What every planning phase reads: the folded cluster state, who should be master, who is
// being drained.
import { defaultPlanOptions, type DesiredCluster, type PlanOptions, type PodPlacement } from './desired.ts';
import { toClusterState, type ClusterState, type NodeState } from './cluster-state.ts';
import { chooseMasters } from './placement.ts';
import type { Topology } from './topology.ts';

export interface PlanContext {
  readonly desired: DesiredCluster;
  readonly topology: Topology;
  readonly now: number;
  readonly options: Required<PlanOptions>;
  readonly state: ClusterState;
  /** Ids that should own slots, in a stable order. */
  readonly masters: readonly NodeState[];
  /** Ids that own slots but must give them all away (pod removing, or masters in surplus). */
  readonly drain: ReadonlySet<string>;
}

const byName = (a: PodPlacement | undefined, b: PodPlacement | undefined) =>
  (a?.name ?? '').localeCompare(b?.name ?? '', 'en', { numeric: true });

export function toPlanContext(
  desired: DesiredCluster,
  topology: Topology,
  now: number,
  options: PlanOptions = {},
): PlanContext {
  const state = toClusterState(desired, topology, now);
  const nodes = [...state.nodes.values()];
  const owners = nodes.filter((n) => n.slots.length > 0);
  const drain = new Set(owners.filter((n) => n.pod?.removing).map((n) => n.id));
  let keepers = owners.filter((n) => !drain.has(n.id)).sort((a, b) => byName(a.pod, b.pod));
  if (keepers.length > desired.masters) {
    // Surplus masters no pod is marked removing for: drain the last ones by pod name.
    for (const extra of keepers.slice(desired.masters)) drain.add(extra.id);
    keepers = keepers.slice(0, desired.masters);
  }
  const masters = [...keepers];
  if (keepers.length < desired.masters) {
    const empty = nodes.filter(
      (n) =>
        n.view &&
        n.pod &&
        !n.pod.removing &&
        n.role === 'master' &&
        n.slots.length === 0 &&
        !n.failed &&
        state.members.includes(n.view),
    );
    const keeperPods = keepers.flatMap((k) => (k.pod ? [k.pod] : []));
    const picked = chooseMasters(
      empty.map((n) => n.pod as PodPlacement),
      keeperPods,
      desired.masters - keepers.length,
    );
    for (const pod of picked) masters.push(empty.find((n) => n.pod === pod) as NodeState);
  }
  return {
    desired,
    topology,
    now,
    options: { ...defaultPlanOptions, ...options },
    state,
    masters,
    drain,
  };
}

export function nodeLabel(n: NodeState): string {
  return n.pod?.name ?? `${n.id.slice(0, 8)}@${n.address ? `${n.address.ip}:${n.address.port}` : '?'}`;
}
