// Kubernetes clients for the functions: one KubeConfig per process (KUBECONFIG, else
// in-cluster, else ~/.kube/config), and the few reads ingest, the resync, the event source
// and the webhooks need.
import { ApiException, CustomObjectsApi, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { GROUP, PLURAL, STORAGE_VERSION } from '../shared/core/api/group.ts';
import type { JsonObject } from '../shared/core/api/json.ts';
import type { ObjectMetaLike } from '../shared/core/apiserver-events.ts';
import { toKey } from '../shared/core/resource-key.ts';
import { withUserAgent } from '../shared/io/kube/user-agent.ts';
import type { ObjectRef, OwnerLookup } from './ingest/to-keys.ts';

/** userAgent names the function in the API server's audit log (e.g. knredis-reconcile). */
export function loadKubeConfig(path: string | undefined, userAgent?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return userAgent ? withUserAgent(kc, userAgent) : kc;
}

const isNotFound = (error: unknown) => error instanceof ApiException && error.code === 404;

export function kubeOwnerLookup(kc: KubeConfig): OwnerLookup {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const custom = kc.makeApiClient(CustomObjectsApi);
  return {
    async readMeta(ref: ObjectRef) {
      try {
        const object = await objects.read({
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          metadata: { name: ref.name, namespace: ref.namespace },
        });
        return (object.metadata ?? {}) as ObjectMetaLike;
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    async existingClusters(namespace, names) {
      const found: string[] = [];
      for (const name of names) {
        try {
          await custom.getNamespacedCustomObject({
            group: GROUP,
            version: STORAGE_VERSION,
            namespace,
            plural: PLURAL,
            name,
          });
          found.push(name);
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      return found;
    },
  };
}

/** Every RedisCluster's key, for the periodic resync. */
export function kubeListClusterKeys(kc: KubeConfig): () => Promise<string[]> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  return async () => {
    const list = (await custom.listClusterCustomObject({ group: GROUP, version: STORAGE_VERSION, plural: PLURAL })) as {
      items?: { metadata?: { namespace?: string; name?: string } }[];
    };
    return (list.items ?? []).map((item) =>
      toKey({ namespace: item.metadata?.namespace ?? '', name: item.metadata?.name ?? '' }),
    );
  };
}

/** One RedisCluster as stored (v1beta1), undefined when there is none: the webhooks check a scale with it. */
export function kubeClusterReader(
  kc: KubeConfig,
): (namespace: string, name: string) => Promise<JsonObject | undefined> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  return async (namespace, name) => {
    try {
      return (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: STORAGE_VERSION,
        namespace,
        plural: PLURAL,
        name,
      })) as JsonObject;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
}
