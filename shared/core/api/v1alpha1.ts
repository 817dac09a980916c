// cache.redis.io/v1alpha1: the API as the original RedisCluster tutorial wrote it. Served for
// existing users, never stored; converted to and from v1beta1 by the conversion webhook.
import type { Condition, ObjectMeta, ResourceRequirements } from './k8s-types.ts';

export interface RedisClusterSpecV1alpha1 {
  /** Number of Redis nodes (masters and their replicas together); see convert.ts. */
  replicas: number;
  resources?: ResourceRequirements;
  config?: Record<string, string>;
  storageClass?: string;
}

export interface RedisClusterStatusV1alpha1 {
  conditions?: Condition[];
  masterPod?: string;
  /** Redis nodes that are ready (v1beta1 status.readyNodes). */
  readyReplicas?: number;
}

export interface RedisClusterV1alpha1 {
  apiVersion: 'cache.redis.io/v1alpha1';
  kind: 'RedisCluster';
  metadata: ObjectMeta;
  spec: RedisClusterSpecV1alpha1;
  status?: RedisClusterStatusV1alpha1;
}
