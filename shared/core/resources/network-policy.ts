// The NetworkPolicy of a cluster (spec.networkPolicy, on by default). It selects the cluster's
// Redis pods and admits, Ingress only:
//   - the Redis port from the clients the spec names (absent: every pod of the cluster's own
//     namespace, where its application usually runs; other namespaces must be named), from the
//     operator's reconcile worker, and from the cluster's own pods (replication and MIGRATE
//     go node to node over the Redis port, not the bus);
//   - the cluster bus port from the cluster's own pods only;
//   - the exporter's metrics port (spec.exporter.enabled) from the monitoring namespace;
//   - with spec.externalAccess, the Redis and bus ports from anywhere: a node port or load
//     balancer forwards from the nodes' addresses (source NAT), which no pod selector names,
//     and every node reaches its peers through those addresses.
// Egress is left open: a node must reach its peers, and DNS, wherever they are.
// `_from` is @kubernetes/client-node's name of `from`: its serializer writes `from` on the wire.
import type { V1NetworkPolicy, V1NetworkPolicyIngressRule, V1NetworkPolicyPeer } from '@kubernetes/client-node';
import type { DefaultedSpec } from '../api/defaults.ts';
import { LABEL_COMPONENT, LABEL_NAME } from '../api/group.ts';
import { childLabels, ownedLabels, ownerReference, type OwnerCluster } from './meta.ts';
import { BUS_PORT, CLIENT_PORT, childNames } from './names.ts';
import { EXPORTER_PORT, withHash } from './statefulset.ts';

/** Where the operator's reconcile worker runs; its pods carry these labels (infra/kubernetes/reconcile.yaml). */
export interface OperatorPeer {
  readonly namespace: string;
}

export const DEFAULT_OPERATOR_NAMESPACE = 'knredis-system';
export const DEFAULT_MONITORING_NAMESPACE = 'monitoring';
export const OPERATOR_POD_LABELS = { [LABEL_NAME]: 'knredis', [LABEL_COMPONENT]: 'reconcile' } as const;
/** Set by the API server on every namespace (Kubernetes 1.22+): a namespace selected by name. */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export function isNetworkPolicyEnabled(spec: DefaultedSpec): boolean {
  return spec.networkPolicy?.enabled !== false;
}

export function desiredNetworkPolicy(
  cluster: OwnerCluster,
  spec: DefaultedSpec,
  operator: OperatorPeer,
): V1NetworkPolicy {
  const name = cluster.metadata.name;
  const ownPods: V1NetworkPolicyPeer = { podSelector: { matchLabels: ownedLabels(name) } };
  const inNamespace = (namespace: string) => ({ matchLabels: { [NAMESPACE_NAME_LABEL]: namespace } });
  const clients = (spec.networkPolicy?.clients ?? [{ podSelector: {} }]) as V1NetworkPolicyPeer[];
  const tcp = (port: number) => [{ protocol: 'TCP', port: port as never }];
  const ingress: V1NetworkPolicyIngressRule[] = spec.externalAccess
    ? [{ ports: [...tcp(CLIENT_PORT), ...tcp(BUS_PORT)] }]
    : [
        {
          _from: [
            ...clients,
            ownPods,
            {
              namespaceSelector: inNamespace(operator.namespace),
              podSelector: { matchLabels: { ...OPERATOR_POD_LABELS } },
            },
          ],
          ports: tcp(CLIENT_PORT),
        },
        { _from: [ownPods], ports: tcp(BUS_PORT) },
      ];
  if (spec.exporter?.enabled) {
    const monitoring = spec.networkPolicy?.monitoringNamespace ?? DEFAULT_MONITORING_NAMESPACE;
    ingress.push({ _from: [{ namespaceSelector: inNamespace(monitoring) }], ports: tcp(EXPORTER_PORT) });
  }
  return withHash({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: childNames(name).networkPolicy,
      namespace: cluster.metadata.namespace,
      labels: childLabels(name, 'network-policy'),
      ownerReferences: [ownerReference(cluster)],
    },
    spec: { podSelector: { matchLabels: ownedLabels(name) }, policyTypes: ['Ingress'], ingress },
  });
}
