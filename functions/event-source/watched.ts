// What the built-in event source watches: every RedisCluster, and the children knredis
// labels as managed (the label selector keeps unrelated objects out), and Secrets, which are
// sent as references only (to-cloud-event.ts): a changed password starts a rotation at once.
// A referenced Secret is the user's and carries no label of ours, so every Secret is watched.
import {
  API_VERSION_V1BETA1,
  GROUP,
  KIND,
  LABEL_CLUSTER,
  LABEL_MANAGED_BY,
  MANAGED_BY_VALUE,
  PLURAL,
  V1BETA1,
} from '../../shared/core/api/group.ts';

export interface WatchedResource {
  readonly apiVersion: string;
  readonly kind: string;
  /** Path of the collection, all namespaces, e.g. /api/v1/pods. */
  readonly path: string;
  readonly labelSelector?: string;
}

const managed = `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE},${LABEL_CLUSTER}`;

export function watchedResources(namespace?: string): WatchedResource[] {
  const ns = (prefix: string, plural: string) =>
    namespace ? `${prefix}/namespaces/${namespace}/${plural}` : `${prefix}/${plural}`;
  return [
    { apiVersion: API_VERSION_V1BETA1, kind: KIND, path: ns(`/apis/${GROUP}/${V1BETA1}`, PLURAL) },
    { apiVersion: 'v1', kind: 'Pod', path: ns('/api/v1', 'pods'), labelSelector: managed },
    { apiVersion: 'v1', kind: 'Service', path: ns('/api/v1', 'services'), labelSelector: managed },
    { apiVersion: 'v1', kind: 'ConfigMap', path: ns('/api/v1', 'configmaps'), labelSelector: managed },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      path: ns('/api/v1', 'persistentvolumeclaims'),
      labelSelector: managed,
    },
    { apiVersion: 'v1', kind: 'Secret', path: ns('/api/v1', 'secrets') },
    { apiVersion: 'apps/v1', kind: 'StatefulSet', path: ns('/apis/apps/v1', 'statefulsets'), labelSelector: managed },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      path: ns('/apis/policy/v1', 'poddisruptionbudgets'),
      labelSelector: managed,
    },
  ];
}
