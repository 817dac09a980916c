// spec.externalAccess: one Service per Redis node, of the spec's type, for the node's client
// and cluster bus ports, and the address each node announces (cluster-announce-ip, -port and
// -bus-port) once that Service has one. A cluster client outside Kubernetes is redirected only
// to announced addresses, so every node must be reachable at its own.
//
//   NodePort      the pod's node's ExternalIP (else its InternalIP) and the two node ports.
//                 externalTrafficPolicy Cluster: any node forwards, so an address announced
//                 before a pod moved keeps working until the node announces its new one.
//   LoadBalancer  the load balancer's IP and the Service's ports (6379, 16379).
//
// publishNotReadyAddresses: a node must reach its peers by their announced addresses while it
// joins, before its pod is Ready.
import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { ExternalAccessSpec } from '../api/v1beta1.ts';
import type { AnnouncedAddress } from '../cluster/desired.ts';
import { childLabels, ownedLabels, ownerReference, type OwnerCluster } from './meta.ts';
import { BUS_PORT, CLIENT_PORT } from './names.ts';
import { withHash } from './statefulset.ts';

export const EXTERNAL_COMPONENT = 'external';
/** The label the StatefulSet controller puts on each pod: the Service of one pod selects by it. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';

export function externalServiceName(pod: string): string {
  return `${pod}-external`;
}

export function desiredExternalService(cluster: OwnerCluster, pod: string, access: ExternalAccessSpec): V1Service {
  const name = cluster.metadata.name;
  const port = (portName: string, number: number) => ({
    name: portName,
    protocol: 'TCP',
    port: number,
    targetPort: number as never,
  });
  return withHash({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: externalServiceName(pod),
      namespace: cluster.metadata.namespace,
      labels: childLabels(name, EXTERNAL_COMPONENT),
      ...(access.annotations && Object.keys(access.annotations).length > 0
        ? { annotations: { ...access.annotations } }
        : {}),
      ownerReferences: [ownerReference(cluster)],
    },
    spec: {
      type: access.type,
      externalTrafficPolicy: 'Cluster',
      publishNotReadyAddresses: true,
      selector: { ...ownedLabels(name), [POD_NAME_LABEL]: pod },
      ports: [port('redis', CLIENT_PORT), port('bus', BUS_PORT)],
    },
  });
}

/** The address clients outside reach a node by: a node's ExternalIP, else its InternalIP. */
export function nodeAddressOf(node: V1Node | undefined): string | undefined {
  const addresses = node?.status?.addresses ?? [];
  return (
    addresses.find((a) => a.type === 'ExternalIP')?.address ?? addresses.find((a) => a.type === 'InternalIP')?.address
  );
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * What the pod's node must announce, from its Service and (NodePort) its node's address; null
 * while any part is not known yet (ports not allocated, no load balancer yet, pod unscheduled).
 * A load balancer known only by a host name is not announceable (cluster-announce-ip takes an
 * address): null too, and the caller says why.
 */
export function announcedAddressOf(
  access: ExternalAccessSpec,
  service: V1Service | undefined,
  nodeAddress: string | undefined,
): AnnouncedAddress | null {
  // A Service of the former type is one this pass's apply has not changed yet.
  if (!service?.spec || service.spec.type !== access.type) return null;
  const ports = service.spec.ports ?? [];
  const redis = ports.find((p) => p.name === 'redis');
  const bus = ports.find((p) => p.name === 'bus');
  if (service.spec.type === 'NodePort') {
    if (!nodeAddress || !redis?.nodePort || !bus?.nodePort) return null;
    return { ip: nodeAddress, port: redis.nodePort, busPort: bus.nodePort };
  }
  if (service.spec.type === 'LoadBalancer') {
    const ip = service.status?.loadBalancer?.ingress?.find((i) => i.ip && IPV4.test(i.ip))?.ip;
    if (!ip || !redis || !bus) return null;
    return { ip, port: redis.port, busPort: bus.port };
  }
  return null;
}

/**
 * The pods that get a Service: every pod the spec wants, and every pod still there (one being
 * drained keeps its address until it is gone).
 */
export function podsWithExternalService(statefulSet: string, podCount: number, present: readonly string[]): string[] {
  const wanted = Array.from({ length: podCount }, (_, i) => `${statefulSet}-${i}`);
  return [...new Set([...wanted, ...present])];
}

/**
 * The Services to delete after the engine's pass: a removed pod's, once the pod is gone, and
 * with spec.externalAccess removed every one, but only once every node the engine saw has
 * stopped announcing (its peers would otherwise lose the address they reach it by).
 */
export function externalServicesToDelete(input: {
  readonly access: ExternalAccessSpec | undefined;
  readonly statefulSet: string;
  readonly podCount: number;
  readonly present: readonly string[];
  readonly services: readonly string[];
  /** Every running pod answered, and none announces an address. */
  readonly announcementsCleared: boolean;
}): string[] {
  if (!input.access) return input.announcementsCleared ? [...input.services] : [];
  const keep = new Set(
    podsWithExternalService(input.statefulSet, input.podCount, input.present).map(externalServiceName),
  );
  return input.services.filter((s) => !keep.has(s));
}
