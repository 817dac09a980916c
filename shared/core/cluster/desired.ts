// The desired shape the reconciler hands to the planner: how many masters, how many replicas
// each, and the pods (with where they run) that should form the cluster.
import type { Address } from './topology.ts';

/** The address a node gives its peers and clients instead of its pod's (spec.externalAccess). */
export interface AnnouncedAddress extends Address {
  readonly busPort: number;
}

export interface PodPlacement {
  readonly name: string;
  /** Where the operator reaches the pod (its pod IP). */
  readonly address: Address;
  /**
   * With spec.externalAccess, the address the node must announce, so the cluster knows it by
   * this one; `null` while the pod has none yet (its Service or load balancer is not ready).
   */
  readonly announced?: AnnouncedAddress | null;
  /** Kubernetes node the pod runs on. */
  readonly nodeName: string;
  /** topology.kubernetes.io/zone of that node, when known. */
  readonly zone?: string;
  /** The pod is being removed (scale in): drain it, forget it, then report it removable. */
  readonly removing?: boolean;
}

export interface DesiredCluster {
  readonly masters: number;
  readonly replicasPerMaster: number;
  readonly pods: readonly PodPlacement[];
  /**
   * Node ids of the cluster's pods that are away for now (rescheduled after a node failure,
   * restarting): they come back with their nodes.conf, so they are never forgotten as ghosts.
   */
  readonly keepIds?: ReadonlySet<string>;
}

export interface PlanOptions {
  /** How long Redis gets to fail over a failed master by itself before the engine promotes. */
  readonly autoFailoverGraceMs?: number;
  /** How long a failed id that no pod carries is kept before it is forgotten. */
  readonly ghostGraceMs?: number;
  /** Rebalance when a master is off its even share by more than this fraction (redis-cli: 2%). */
  readonly rebalanceThreshold?: number;
}

export const defaultPlanOptions: Required<PlanOptions> = {
  autoFailoverGraceMs: 15_000,
  ghostGraceMs: 10_000,
  rebalanceThreshold: 0.02,
};
