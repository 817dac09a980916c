// What the reconciler observed in Kubernetes for one RedisCluster, as plain data: the input of
// the pure planners here. functions/reconcile/observe.ts builds it.
import type {
  V1ConfigMap,
  V1NetworkPolicy,
  V1PodDisruptionBudget,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';

export interface ObservedPod {
  readonly name: string;
  readonly ordinal: number;
  readonly ip?: string;
  readonly nodeName?: string;
  readonly zone?: string;
  readonly phase?: string;
  readonly ready: boolean;
  readonly terminating: boolean;
  /** The StatefulSet revision the pod was created from (label controller-revision-hash). */
  readonly revision?: string;
  /** The node the pod is on is NotReady (or gone), and since when (ms). */
  readonly nodeLostSince?: number;
  readonly restartCount: number;
  /** The address of the pod's node clients outside reach it by (ExternalIP, else InternalIP). */
  readonly nodeAddress?: string;
}

export interface ObservedChildren {
  readonly statefulSet?: V1StatefulSet;
  readonly configMap?: V1ConfigMap;
  readonly headlessService?: V1Service;
  readonly clientService?: V1Service;
  readonly podDisruptionBudget?: V1PodDisruptionBudget;
  readonly networkPolicy?: V1NetworkPolicy;
  /** spec.externalAccess: the `<pod>-external` Services, of any pod, present or gone. */
  readonly externalServices?: readonly V1Service[];
  /** The auth Secret (referenced or generated); its data is never copied anywhere else. */
  readonly secret?: V1Secret;
  /** The operator's record of the password in force (rotation-record.ts); never copied elsewhere. */
  readonly activeSecret?: V1Secret;
  /** The monitoring user's Secret (monitor-user.ts); its password goes to the exporter only. */
  readonly monitorSecret?: V1Secret;
}

/** A pod's data volume, and the Redis node id its nodes.conf holds (recorded by the operator). */
export interface ObservedClaim {
  readonly name: string;
  readonly pod: string;
  readonly ordinal: number;
  readonly nodeId?: string;
  /** spec.resources.requests.storage and status.capacity.storage (volume growth). */
  readonly requested?: string;
  readonly capacity?: string;
}

export interface Observed {
  readonly children: ObservedChildren;
  readonly pods: readonly ObservedPod[];
  readonly claims: readonly ObservedClaim[];
}
