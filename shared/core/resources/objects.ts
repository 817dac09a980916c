// The other children: redis.conf ConfigMap, the generated auth Secret, the Services and the
// PodDisruptionBudget. Each carries labels, an owner reference and its desired hash. The
// Services and the PDB select by ownedLabels, never by the StatefulSet's wider selector.
import type { V1ConfigMap, V1PodDisruptionBudget, V1Secret, V1Service } from '@kubernetes/client-node';
import { childLabels, ownedLabels, ownerReference, type OwnerCluster } from './meta.ts';
import { BUS_PORT, CLIENT_PORT, CONFIG_FILE, PASSWORD_KEY, childNames } from './names.ts';
import { EXPORTER_PORT, withHash } from './statefulset.ts';

function meta(cluster: OwnerCluster, name: string, component: string) {
  return {
    name,
    namespace: cluster.metadata.namespace,
    labels: childLabels(cluster.metadata.name, component),
    ownerReferences: [ownerReference(cluster)],
  };
}

export function desiredConfigMap(cluster: OwnerCluster, redisConf: string): V1ConfigMap {
  return withHash({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(cluster, childNames(cluster.metadata.name).configMap, 'config'),
    data: { [CONFIG_FILE]: redisConf },
  });
}

/** The generated Secret; `password` comes from the caller (random, created once, never changed). */
export function desiredSecret(cluster: OwnerCluster, password: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: meta(cluster, childNames(cluster.metadata.name).generatedSecret, 'auth'),
    stringData: { [PASSWORD_KEY]: password },
  };
}

/** With the exporter on, the headless Service also names its port, for a ServiceMonitor. */
export function desiredHeadlessService(cluster: OwnerCluster, exporter = false): V1Service {
  const name = cluster.metadata.name;
  return withHash({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(cluster, childNames(name).headlessService, 'nodes'),
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: ownedLabels(name),
      ports: [
        { name: 'redis', port: CLIENT_PORT, targetPort: CLIENT_PORT as never },
        { name: 'bus', port: BUS_PORT, targetPort: BUS_PORT as never },
        ...(exporter ? [{ name: 'metrics', port: EXPORTER_PORT, targetPort: EXPORTER_PORT as never }] : []),
      ],
    },
  });
}

export function desiredClientService(cluster: OwnerCluster): V1Service {
  const name = cluster.metadata.name;
  return withHash({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(cluster, childNames(name).clientService, 'client'),
    spec: {
      type: 'ClusterIP',
      selector: ownedLabels(name),
      ports: [{ name: 'redis', port: CLIENT_PORT, targetPort: CLIENT_PORT as never }],
    },
  });
}

export function desiredPodDisruptionBudget(cluster: OwnerCluster, maxUnavailable: number): V1PodDisruptionBudget {
  const name = cluster.metadata.name;
  return withHash({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(cluster, childNames(name).podDisruptionBudget, 'pdb'),
    spec: { maxUnavailable: maxUnavailable as never, selector: { matchLabels: ownedLabels(name) } },
  });
}
