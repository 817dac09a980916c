// What the built-in event source watches: every RedisCluster and RedisClusterBackup, and the children knredis
// labels as managed (the label selector keeps unrelated objects out), from the one table of
// child kinds (shared/core/resources/owned-kinds.ts), and Secrets, sent as references only
// (to-cloud-event.ts): a changed password starts a rotation at once. A referenced Secret is
// the user's and carries no label of ours, so every Secret is watched.
import { API_VERSION_V1BETA1, GROUP, KIND, PLURAL, V1BETA1 } from '../../shared/core/api/group.ts';
import { apiVersionOf, BACKUP_RESOURCE, CHILD_KINDS, collectionPath } from '../../shared/core/resources/owned-kinds.ts';
import { MANAGED_SELECTOR } from '../../shared/core/api/group.ts';
import type { WatchedResource } from '../../shared/io/kube/watch-resource.ts';

export type { WatchedResource } from '../../shared/io/kube/watch-resource.ts';

export function watchedResources(namespace?: string): WatchedResource[] {
  const clusters = { group: GROUP, version: V1BETA1, kind: KIND, plural: PLURAL };
  return [
    { apiVersion: API_VERSION_V1BETA1, kind: KIND, path: collectionPath(clusters, namespace) },
    // a user's backup carries no label of ours: every one is watched
    {
      apiVersion: apiVersionOf(BACKUP_RESOURCE),
      kind: BACKUP_RESOURCE.kind,
      path: collectionPath(BACKUP_RESOURCE, namespace),
    },
    ...CHILD_KINDS.map((k) => ({
      apiVersion: apiVersionOf(k),
      kind: k.kind,
      path: collectionPath(k, namespace),
      labelSelector: MANAGED_SELECTOR,
    })),
    {
      apiVersion: 'v1',
      kind: 'Secret',
      path: collectionPath({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets' }, namespace),
    },
  ];
}
