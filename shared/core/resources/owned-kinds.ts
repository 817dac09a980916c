// The kinds of children knredis creates for a RedisCluster, declared once: ingest maps their
// events to the owner (functions/ingest/to-keys.ts), the event source and Knative's
// ApiServerSource watch them (functions/event-source/watched.ts, infra/knative/
// apiserversource.yaml, checked by a test), the reconcile worker caches them, and the RBAC
// manifests grant their verbs (infra/rbac/permissions.ts). Secrets are left out on purpose:
// an event carries the whole object, and the reconciler reads its auth Secret itself.
import { BACKUP_KIND, BACKUP_PLURAL, GROUP, V1BETA1 } from '../api/group.ts';

export interface ResourceKind {
  /** API group; '' is the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

export const CHILD_KINDS: readonly ResourceKind[] = [
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods' },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets' },
  { group: '', version: 'v1', kind: 'Service', plural: 'services' },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims' },
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets' },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies' },
];

/**
 * RedisClusterBackup: not a child (a user creates one naming its cluster in spec.clusterName;
 * the schedule's carry an owner reference), so it is watched without the managed-by label and
 * ingest maps it to its cluster's key, which backs it up in the cluster's own reconcile.
 */
export const BACKUP_RESOURCE: ResourceKind = {
  group: GROUP,
  version: V1BETA1,
  kind: BACKUP_KIND,
  plural: BACKUP_PLURAL,
};

export const NODE_KIND: ResourceKind = { group: '', version: 'v1', kind: 'Node', plural: 'nodes' };

export const apiVersionOf = (k: ResourceKind): string => (k.group ? `${k.group}/${k.version}` : k.version);

/** The collection's path, in one namespace or (namespace undefined) in all. */
export function collectionPath(k: ResourceKind, namespace?: string): string {
  const prefix = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  return namespace ? `${prefix}/namespaces/${namespace}/${k.plural}` : `${prefix}/${k.plural}`;
}
