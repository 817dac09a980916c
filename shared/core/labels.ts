// The labels knredis puts on every object it creates for a RedisCluster, and the API
// coordinates of the RedisCluster itself. The reconciler sets these labels; ingest and the
// built-in event source use them to map a child object back to its RedisCluster.

export const redisClusterApi = Object.freeze({
  group: 'cache.redis.io',
  version: 'v1beta1',
  plural: 'redisclusters',
  kind: 'RedisCluster',
});

export const labelKeys = Object.freeze({
  /** "knredis" on every object knredis manages. */
  managedBy: 'app.kubernetes.io/managed-by',
  /** The RedisCluster's name (the common Kubernetes label). */
  instance: 'app.kubernetes.io/instance',
  /** The RedisCluster's name: the one label ingest trusts to find the owner. */
  cluster: 'cache.redis.io/cluster',
});

export const managedByValue = 'knredis';

/** The labels of a child object of the RedisCluster named `clusterName`. */
export function childLabels(clusterName: string): Record<string, string> {
  return { [labelKeys.managedBy]: managedByValue, [labelKeys.instance]: clusterName, [labelKeys.cluster]: clusterName };
}

/** Label selector matching every object knredis manages (for watches and lists). */
export const managedSelector = `${labelKeys.managedBy}=${managedByValue},${labelKeys.cluster}`;
