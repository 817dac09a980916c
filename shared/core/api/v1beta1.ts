// cache.redis.io/v1beta1: the full RedisCluster API, the version stored in etcd and the one
// the operator reads and writes. The OpenAPI schema (schema-v1beta1.ts) is checked against
// these types at compile time, so the two cannot drift.
import type { BackupStorageSpec } from './backup-v1beta1.ts';
import type {
  Affinity,
  Condition,
  EnvVar,
  NetworkPolicyPeer,
  PodSecurityContext,
  ObjectMeta,
  ResourceRequirements,
  Toleration,
  TopologySpreadConstraint,
} from './k8s-types.ts';

export type ReclaimPolicy = 'Retain' | 'Delete';

export interface StorageSpec {
  /** StorageClass of the PVCs; absent means the cluster's default class. Immutable once set. */
  className?: string;
  /** Size of each node's PVC, a quantity such as `1Gi`. May grow, never shrink. */
  size?: string;
  /** What happens to the PVCs when the RedisCluster is deleted. */
  reclaim?: ReclaimPolicy;
}

export interface SecretKeyRef {
  name: string;
  key?: string;
}

export interface AuthSpec {
  /** Secret holding the password; generated as `<name>-auth` when absent. */
  secretRef?: SecretKeyRef;
}

export interface TlsSpec {
  /** A `kubernetes.io/tls` Secret (tls.crt, tls.key, ca.crt), as cert-manager writes it. */
  secretRef: { name: string };
  /** Keep a plaintext listener on port 6380 beside TLS on 6379; false (off) by default. */
  plaintext?: boolean;
}

export interface ExporterSpec {
  enabled?: boolean;
  image?: string;
  resources?: ResourceRequirements;
}

export interface PodDisruptionBudgetSpec {
  enabled?: boolean;
  maxUnavailable?: number;
}

export interface NetworkPolicySpec {
  /** Keep a NetworkPolicy for the Redis pods; true by default. */
  enabled?: boolean;
  /** Who may reach the Redis port; absent: every pod of the cluster's own namespace. */
  clients?: NetworkPolicyPeer[];
  /** Namespace whose pods may scrape the exporter's port. */
  monitoringNamespace?: string;
}

export type ExternalAccessType = 'NodePort' | 'LoadBalancer';

export interface ExternalAccessSpec {
  /** One Service of this type per Redis node, its client and bus ports; the node announces it. */
  type: ExternalAccessType;
  /** Annotations of every such Service (a cloud's load-balancer settings). */
  annotations?: Record<string, string>;
}

export interface BackupScheduleSpec {
  /** When to back up: a 5-field cron expression, in UTC. */
  schedule: string;
  /** Completed scheduled backups kept; older ones are deleted with their stored files. */
  keep?: number;
  storage: BackupStorageSpec;
}

export interface RestoreSpec {
  /** The RedisClusterBackup (same namespace) whose keys a new cluster starts with. */
  backupName: string;
}

export interface RedisClusterSpec {
  masters?: number;
  replicasPerMaster?: number;
  version?: string;
  image?: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  resources?: ResourceRequirements;
  storage?: StorageSpec;
  config?: Record<string, string>;
  auth?: AuthSpec;
  /** TLS for clients, replication and the cluster bus; set at creation only. */
  tls?: TlsSpec;
  exporter?: ExporterSpec;
  affinity?: Affinity;
  tolerations?: Toleration[];
  nodeSelector?: Record<string, string>;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  podDisruptionBudget?: PodDisruptionBudgetSpec;
  networkPolicy?: NetworkPolicySpec;
  /** Reach every node from outside Kubernetes: the address clients are redirected to. */
  externalAccess?: ExternalAccessSpec;
  priorityClassName?: string;
  /** Over the operator's defaults (non-root uid 999, seccomp RuntimeDefault): restricted either way unless changed. */
  securityContext?: PodSecurityContext;
  /** Extra environment of the Redis container. */
  env?: EnvVar[];
  paused?: boolean;
  /** Scheduled backups (RedisClusterBackup objects owned by this cluster). */
  backup?: BackupScheduleSpec;
  /** Start from a backup's keys; set at creation only. */
  restore?: RestoreSpec;
}

export type Phase =
  'Pending' | 'Creating' | 'Running' | 'Scaling' | 'Updating' | 'Degraded' | 'Failed' | 'Paused' | 'Deleting';
export type NodeRole = 'master' | 'replica';

export interface ClusterNodeStatus {
  pod: string;
  nodeId?: string;
  ip?: string;
  /** With spec.externalAccess: the ip:port the node announces, where clients outside reach it. */
  externalAddress?: string;
  ready?: boolean;
}

export interface SlotRange {
  start: number;
  end: number;
}

export interface ShardStatus {
  index: number;
  name?: string;
  master?: ClusterNodeStatus;
  replicas?: ClusterNodeStatus[];
  slots?: SlotRange[];
}

export type OperationType =
  | 'Create'
  | 'ScaleOut'
  | 'ScaleIn'
  | 'AddReplicas'
  | 'RemoveReplicas'
  | 'RollingUpdate'
  | 'Failover'
  | 'Heal'
  | 'ResizeVolumes'
  | 'RotatePassword'
  | 'ReloadCertificates';

export interface OperationStatus {
  type: OperationType;
  /** For people: `migrating slots 1200/5461`. */
  progress?: string;
  startedAt?: string;
}

export type RestorePhase = 'Running' | 'Completed' | 'Failed';

export interface RestoreStatus {
  backupName: string;
  phase: RestorePhase;
  /** Shards of the backup restored so far, of `shards`. */
  shardsRestored?: number;
  shards?: number;
  /** Keys written so far. */
  keys?: number;
  /** For people: progress, or why the restore stopped. */
  message?: string;
}

export interface RedisClusterStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  phase?: Phase;
  shards?: ShardStatus[];
  slotsCovered?: number;
  readyMasters?: number;
  readyReplicas?: number;
  readyNodes?: number;
  selector?: string;
  operation?: OperationStatus;
  masterPod?: string;
  restore?: RestoreStatus;
}

export interface RedisCluster {
  apiVersion: 'cache.redis.io/v1beta1';
  kind: 'RedisCluster';
  metadata: ObjectMeta;
  spec: RedisClusterSpec;
  status?: RedisClusterStatus;
}

/** Condition types and their reasons, as the operator reports them. */
export const ConditionType = { Ready: 'Ready', Progressing: 'Progressing', Degraded: 'Degraded' } as const;
