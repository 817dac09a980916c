// The reconcile worker's watch-fed cache of the children knredis owns, and of the nodes, so a
// steady pass reads only the RedisCluster and its auth Secret from the API server (the spec and
// the password are never served stale). Informer-style, over the one list-watch loop:
//   children  one watch per child kind, by the managed-by label (what the event source watches)
//   nodes     one watch, each node trimmed to its name, zone label, Ready condition and addresses
//             (about 300 bytes a node: 5,000 nodes are about 1.5 MB)
// Correctness: a pass may start (on the event source's event) before this cache has seen the
// change that caused it, so the cache itself enqueues the owner's key after it stores a changed
// child: some pass always starts after the cache holds each change. Until every watch has
// listed once, `synced` is false and observe reads the API server instead.
import type { KubeConfig, KubernetesObject, V1Node } from '@kubernetes/client-node';
import { LABEL_CLUSTER, MANAGED_SELECTOR, ownedLabels } from '../../core/api/group.ts';
import type { BackoffPolicy } from '../../core/queue/backoff.ts';
import { toKey } from '../../core/resource-key.ts';
import {
  apiVersionOf,
  CHILD_KINDS,
  collectionPath,
  NODE_KIND,
  type ResourceKind,
} from '../../core/resources/owned-kinds.ts';
import type { Logger } from '../log.ts';
import { watchResource, type ListWatch } from './watch-resource.ts';

export interface ChildCache {
  readonly synced: boolean;
  /** A child by kind and name, as last watched. */
  child<T extends KubernetesObject>(kind: string, namespace: string, name: string): T | undefined;
  /** The children of `kind` that carry every owned label of the cluster (ownedSelector). */
  owned<T extends KubernetesObject>(kind: string, namespace: string, clusterName: string): T[];
  node(name: string): V1Node | undefined;
  stop(): Promise<void>;
}

export interface ChildCacheOptions {
  readonly kubeConfig: KubeConfig;
  /** Only this namespace (WATCH_NAMESPACE); all when undefined. */
  readonly namespace?: string;
  /** A child of this RedisCluster key changed (after the cache stored it). */
  readonly onChange: (key: string) => void;
  readonly backoff?: BackoffPolicy;
  readonly log: Logger;
}

/** What a cached object keeps: managedFields are most of an object's size and nobody reads them. */
function trim(o: KubernetesObject): KubernetesObject {
  if (!o.metadata?.managedFields) return o;
  const { managedFields: _, ...metadata } = o.metadata;
  return { ...o, metadata };
}

const ZONE = 'topology.kubernetes.io/zone';

function trimNode(o: KubernetesObject): KubernetesObject {
  const node = o as V1Node;
  const zone = node.metadata?.labels?.[ZONE];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  // The addresses a NodePort is reached at (spec.externalAccess).
  const addresses = node.status?.addresses?.filter((a) => a.type === 'ExternalIP' || a.type === 'InternalIP');
  const status = {
    ...(ready ? { conditions: [ready] } : {}),
    ...(addresses?.length ? { addresses } : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.metadata?.name ?? '', ...(zone ? { labels: { [ZONE]: zone } } : {}) },
    ...(Object.keys(status).length > 0 ? { status } : {}),
  } as KubernetesObject;
}

export function startChildCache(options: ChildCacheOptions): ChildCache {
  const { kubeConfig, namespace, log } = options;
  const backoff = options.backoff ?? { baseMs: 200, maxMs: 30_000, jitter: 0.2 };
  const watch = (kind: ResourceKind, labelSelector: string | undefined, transform = trim, onChange = notify) =>
    watchResource(
      kubeConfig,
      {
        apiVersion: apiVersionOf(kind),
        kind: kind.kind,
        path: collectionPath(kind, kind === NODE_KIND ? undefined : namespace),
        ...(labelSelector ? { labelSelector } : {}),
      },
      onChange,
      backoff,
      log.child({ cache: kind.kind }),
      transform,
    );
  const children = new Map<string, ListWatch>();
  // A changed child (not the relist's re-emit of an unchanged one) enqueues its owner.
  function notify(object: KubernetesObject, _verb: string, previous?: KubernetesObject) {
    if (![...children.values()].every((w) => w.synced)) return; // the first lists: the resync covers them
    if (previous && previous.metadata?.resourceVersion === object.metadata?.resourceVersion && _verb !== 'delete')
      return;
    const cluster = object.metadata?.labels?.[LABEL_CLUSTER];
    const ns = object.metadata?.namespace;
    if (cluster && ns) options.onChange(toKey({ namespace: ns, name: cluster }));
  }
  for (const kind of CHILD_KINDS) children.set(kind.kind, watch(kind, MANAGED_SELECTOR));
  const nodes = watch(NODE_KIND, undefined, trimNode, () => {});
  const all = [...children.values(), nodes];
  log.info({ kinds: [...children.keys(), 'Node'], namespace: namespace ?? 'all' }, 'child cache watching');
  return {
    get synced() {
      return all.every((w) => w.synced);
    },
    child: <T extends KubernetesObject>(kind: string, ns: string, name: string) =>
      children.get(kind)?.get(`${ns}/${name}`) as T | undefined,
    owned<T extends KubernetesObject>(kind: string, ns: string, clusterName: string): T[] {
      const wanted = Object.entries(ownedLabels(clusterName));
      return (children.get(kind)?.list() ?? []).filter(
        (o) => o.metadata?.namespace === ns && wanted.every(([k, v]) => o.metadata?.labels?.[k] === v),
      ) as T[];
    },
    node: (name) => nodes.get(`/${name}`) as V1Node | undefined,
    async stop() {
      await Promise.all(all.map((w) => w.stop()));
    },
  };
}
