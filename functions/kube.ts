// Kubernetes clients for the functions: one KubeConfig per process (KUBECONFIG, else
// in-cluster, else ~/.kube/config), and the few reads ingest, the resync, the event source
// and the webhooks need.
import { CustomObjectsApi, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { GROUP, PLURAL, STORAGE_VERSION } from '../shared/core/api/group.ts';
import type { JsonObject } from '../shared/core/api/json.ts';
import { toKey } from '../shared/core/resource-key.ts';
import { secretsUsedBy, type SecretUser } from '../shared/core/resources/secrets-used.ts';
import { unlessNotFound } from '../shared/io/kube/errors.ts';
import { withKeepAlive } from '../shared/io/kube/keep-alive.ts';
import { withUserAgent } from '../shared/io/kube/user-agent.ts';
import type { LiveObject, ObjectRef, OwnerLookup } from './ingest/to-keys.ts';

/**
 * userAgent names the function in the API server's audit log (e.g. knredis-reconcile). Its
 * requests share keep-alive connections (keep-alive.ts).
 */
export function loadKubeConfig(path: string | undefined, userAgent?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return withKeepAlive(userAgent ? withUserAgent(kc, userAgent) : kc);
}

export function kubeOwnerLookup(kc: KubeConfig): OwnerLookup {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const readCluster = kubeClusterReader(kc);
  return {
    async readObject(ref: ObjectRef) {
      const object = await unlessNotFound(
        objects.read({
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          metadata: { name: ref.name, namespace: ref.namespace },
        }),
      );
      return object ? (object as LiveObject) : null;
    },
    async existingClusters(namespace, names) {
      const found: string[] = [];
      for (const name of names) if (await readCluster(namespace, name)) found.push(name);
      return found;
    },
    async clustersUsingSecret(namespace, secret) {
      const list = (await custom.listNamespacedCustomObject({
        group: GROUP,
        version: STORAGE_VERSION,
        namespace,
        plural: PLURAL,
      })) as {
        items?: SecretUser[];
      };
      return (list.items ?? []).flatMap((rc) =>
        rc.metadata?.name && secretsUsedBy(rc).includes(secret) ? [rc.metadata.name] : [],
      );
    },
  };
}

/** The resync's list: every RedisCluster, or those of one namespace (WATCH_NAMESPACE, a Role suffices). */
export function kubeListClusterKeys(kc: KubeConfig, namespace?: string): () => Promise<string[]> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const collection = { group: GROUP, version: STORAGE_VERSION, plural: PLURAL };
  return async () => {
    const list = (await (namespace
      ? custom.listNamespacedCustomObject({ ...collection, namespace })
      : custom.listClusterCustomObject(collection))) as {
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
    const read = custom.getNamespacedCustomObject({
      group: GROUP,
      version: STORAGE_VERSION,
      namespace,
      plural: PLURAL,
      name,
    });
    return (await unlessNotFound(read)) as JsonObject | undefined;
  };
}
