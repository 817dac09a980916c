// The Node objects the local kubelet registers and the Leases it renews (pure).
import type { V1Lease, V1Node } from '@kubernetes/client-node';

export interface LocalNode {
  readonly name: string;
  readonly index: number;
  readonly zone: string;
  readonly address: string;
}

export const zones = ['zone-a', 'zone-b', 'zone-c'];

export const nodeCapacity = { cpu: '8', memory: '16Gi', pods: '110', 'ephemeral-storage': '50Gi' };

/** Node i is in zones[i] when given (an uneven spread), else round-robin over zone-a..c. */
export function localNodes(
  count: number,
  addressOf: (index: number) => string,
  zoneOf: readonly string[] = [],
): LocalNode[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `local-node-${i + 1}`,
    index: i + 1,
    zone: zoneOf[i] ?? zones[i % zones.length] ?? 'zone-a',
    address: addressOf(i + 1),
  }));
}

export function nodeLabels(node: LocalNode): Record<string, string> {
  return {
    'kubernetes.io/hostname': node.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'topology.kubernetes.io/zone': node.zone,
    'topology.kubernetes.io/region': 'local',
    'node.kubernetes.io/instance-type': 'knredis-local',
  };
}

export function nodeStatus(
  node: LocalNode,
  now: string,
  readySince: string,
  controlPort: number,
): NonNullable<V1Node['status']> {
  const condition = (type: string, status: string, reason: string, message: string, since: string) =>
    ({ type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: since }) as unknown as NonNullable<
      NonNullable<V1Node['status']>['conditions']
    >[number];
  return {
    capacity: nodeCapacity,
    allocatable: nodeCapacity,
    conditions: [
      condition(
        'MemoryPressure',
        'False',
        'KubeletHasSufficientMemory',
        'kubelet has sufficient memory available',
        readySince,
      ),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure', readySince),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available', readySince),
      condition('Ready', 'True', 'KubeletReady', 'local kubelet is posting ready status', readySince),
    ],
    addresses: [
      { type: 'InternalIP', address: node.address },
      { type: 'Hostname', address: node.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: controlPort } },
    nodeInfo: {
      machineID: node.name,
      systemUUID: node.name,
      bootID: readySince,
      kernelVersion: 'local',
      osImage: 'knredis local kubelet',
      containerRuntimeVersion: 'local://processes',
      kubeletVersion: 'v0.0.0-knredis-local',
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

export function nodeObject(node: LocalNode, now: string, controlPort: number): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name, labels: nodeLabels(node) },
    spec: {},
    status: nodeStatus(node, now, now, controlPort),
  };
}

export function leaseObject(
  node: LocalNode,
  nodeUid: string | undefined,
  renewTime: string,
  durationSeconds: number,
): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: node.name,
      namespace: 'kube-node-lease',
      ...(nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: nodeUid }] } : {}),
    },
    spec: { holderIdentity: node.name, leaseDurationSeconds: durationSeconds, renewTime: renewTime as unknown as Date },
  };
}

/** MicroTime as the API server parses it: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
