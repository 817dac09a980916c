// Names of the RedisCluster API: group, kind, versions, and the label and annotation keys the
// operator and the conversion webhook agree on. Other modules import these, never spell them.
export const GROUP = 'cache.redis.io';
export const KIND = 'RedisCluster';
export const LIST_KIND = 'RedisClusterList';
export const PLURAL = 'redisclusters';
export const SINGULAR = 'rediscluster';
/** `rc` is taken by replicationcontrollers, so the short names are `redisc` and `rdc`. */
export const SHORT_NAMES = ['redisc', 'rdc'] as const;
export const CATEGORIES = ['redis'] as const;
export const CRD_NAME = `${PLURAL}.${GROUP}`;

export const V1ALPHA1 = 'v1alpha1';
export const V1BETA1 = 'v1beta1';
export const API_VERSION_V1ALPHA1 = `${GROUP}/${V1ALPHA1}`;
export const API_VERSION_V1BETA1 = `${GROUP}/${V1BETA1}`;
/** The version stored in etcd and used by the operator. */
export const STORAGE_VERSION: string = V1BETA1;

/**
 * Set on a v1alpha1 object by the conversion webhook: the v1beta1 spec fields that v1alpha1
 * cannot hold, as JSON. Read back (and removed) when the object is converted up again, so a
 * round trip through v1alpha1 loses nothing. Never stored: the storage version is v1beta1.
 */
export const ANNOTATION_V1BETA1_SPEC = `${GROUP}/v1beta1-spec`;
/** Same as ANNOTATION_V1BETA1_SPEC, for the v1beta1 status fields v1alpha1 cannot hold. */
export const ANNOTATION_V1BETA1_STATUS = `${GROUP}/v1beta1-status`;

/** Labels the operator puts on every object it creates for a RedisCluster. */
export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';
/** The RedisCluster a child object belongs to (its name; namespace is the child's). */
export const LABEL_CLUSTER = `${GROUP}/cluster`;
export const NAME_VALUE = 'redis-cluster';
export const MANAGED_BY_VALUE = 'knredis';

/**
 * Labels only what knredis created for this cluster carries. The name/instance pair alone is
 * the recommended labelling any workload may copy; a Service, the PDB or a list of pods or
 * claims that selected by it alone would take in another workload's pods or delete its volumes.
 */
export function ownedLabels(clusterName: string): Record<string, string> {
  return {
    [LABEL_NAME]: NAME_VALUE,
    [LABEL_INSTANCE]: clusterName,
    [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
    [LABEL_CLUSTER]: clusterName,
  };
}

/** What every child knredis labels as managed carries (the watches' label selector). */
export const MANAGED_SELECTOR = `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE},${LABEL_CLUSTER}`;

/** ownedLabels as a label selector: what lists of a cluster's pods and claims ask for. */
export function ownedSelector(clusterName: string): string {
  return Object.entries(ownedLabels(clusterName))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The StatefulSet's (immutable, wide) selector of a RedisCluster's pods, as `status.selector` reports it. */
export function podSelector(clusterName: string): string {
  return `${LABEL_NAME}=${NAME_VALUE},${LABEL_INSTANCE}=${clusterName}`;
}

/** The number of hash slots of a Redis Cluster. */
export const SLOT_COUNT = 16384;

/** The backup kind: one RedisClusterBackup is one backup of one RedisCluster (by spec.clusterName). */
export const BACKUP_KIND = 'RedisClusterBackup';
export const BACKUP_LIST_KIND = 'RedisClusterBackupList';
export const BACKUP_PLURAL = 'redisclusterbackups';
export const BACKUP_SINGULAR = 'redisclusterbackup';
export const BACKUP_SHORT_NAMES = ['rcb'] as const;
export const BACKUP_CRD_NAME = `${BACKUP_PLURAL}.${GROUP}`;
