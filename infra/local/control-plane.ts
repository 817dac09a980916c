// Command lines of the control-plane processes. Every listener is on 127.0.0.1; the timings
// are shortened so a dead node is NotReady and its pods evicted within seconds (README.md).
import { join } from 'node:path';
import type { Certs } from './certs.ts';
import type { Ports } from './state.ts';

export interface Layout {
  dir: string;
  binDir: string;
  certs: Certs;
  ports: Ports;
  kubeconfigs: { controllerManager: string; scheduler: string };
  /** Write an audit log (benchmarks count API requests with it); off by default. */
  audit?: boolean;
  /** --service-cluster-ip-range (default serviceClusterIpRange). */
  serviceCidr?: string;
  /**
   * Kubernetes' own node-failure timings (a node NotReady after 50 s without a heartbeat, its
   * pods evicted 300 s later) instead of this environment's seconds: for a fleet of pods, whose
   * one kubelet process can be late with its heartbeats on a busy machine.
   */
  standardNodeTimings?: boolean;
  /**
   * Pods run as containers (kubelet --runtime container) and reach the API server at their
   * network's gateway, so it listens on every address, not on 127.0.0.1 alone. Clients still
   * need a certificate of its CA or a token.
   */
  podsInContainers?: boolean;
}

/** Where the API server's audit policy and log live in an environment's directory. */
export function auditPaths(dir: string): { policy: string; log: string } {
  return { policy: join(dir, 'apiserver', 'audit-policy.yaml'), log: join(dir, 'logs', 'audit.log') };
}

// One line per request once it is answered (ResponseComplete; watches also log when they
// start): who, verb, resource, user agent; never a body (Secrets would be in it).
export const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`;

function auditFlags(l: Layout): string[] {
  if (!l.audit) return [];
  const { policy, log } = auditPaths(l.dir);
  return [
    `--audit-policy-file=${policy}`,
    `--audit-log-path=${log}`,
    '--audit-log-format=json',
    '--audit-log-maxsize=500',
    '--audit-log-maxbackup=1',
  ];
}

export const serviceClusterIpRange = '10.0.0.0/24';

/** A Service range on loopback, for webhooks that must be reached through a Service (Knative's
 * refuse a URL): the API server dials a Service's clusterIP, and a process listening on every
 * interface answers there. 127.99.X.0/24 for pods in 127.X.0.0/16: inside no pod prefix
 * (127.100-127.254), and distinct per environment. */
export function loopbackServiceCidr(podIpPrefix: string): string {
  const x = podIpPrefix.split('.')[1];
  return `127.99.${x}.0/24`;
}

/** The Service range of an environment whose pods are containers: 172.16.X.0/24 for pods in
 * 10.X.0.0/16, outside every pod network and distinct per environment; its addresses are put
 * on the host (kubelet/cluster-ips.ts) and proxied (kubelet/service-proxy.ts). */
export function containerServiceCidr(podIpPrefix: string): string {
  const x = podIpPrefix.split('.')[1];
  return `172.16.${x}.0/24`;
}

export function etcdCommand(l: Layout): [string, string[]] {
  const client = `http://127.0.0.1:${l.ports.etcd}`;
  const peer = `http://127.0.0.1:${l.ports.etcdPeer}`;
  return [
    join(l.binDir, 'etcd'),
    [
      '--name',
      'default',
      '--data-dir',
      join(l.dir, 'etcd'),
      '--listen-client-urls',
      client,
      '--advertise-client-urls',
      client,
      '--listen-peer-urls',
      peer,
      '--initial-advertise-peer-urls',
      peer,
      '--initial-cluster',
      `default=${peer}`,
      '--initial-cluster-state',
      'new',
      // A throw-away test store: no fsync (much faster on a busy disk), no growing history.
      '--unsafe-no-fsync',
      '--auto-compaction-retention',
      '5m',
      '--quota-backend-bytes',
      String(2 * 1024 ** 3),
      '--log-level',
      'warn',
    ],
  ];
}

export function apiserverCommand(l: Layout): [string, string[]] {
  const c = l.certs;
  return [
    join(l.binDir, 'kube-apiserver'),
    [
      `--etcd-servers=http://127.0.0.1:${l.ports.etcd}`,
      `--bind-address=${l.podsInContainers ? '0.0.0.0' : '127.0.0.1'}`,
      '--advertise-address=127.0.0.1',
      `--secure-port=${l.ports.apiserver}`,
      `--cert-dir=${join(l.dir, 'apiserver')}`,
      `--tls-cert-file=${c.apiserver.cert}`,
      `--tls-private-key-file=${c.apiserver.key}`,
      `--client-ca-file=${c.ca.cert}`,
      // Request-header authentication: without it the controller-manager's and scheduler's
      // delegated authentication keeps logging a missing CA bundle (and aggregation needs it).
      `--requestheader-client-ca-file=${c.ca.cert}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--proxy-client-cert-file=${c.frontProxy.cert}`,
      `--proxy-client-key-file=${c.frontProxy.key}`,
      '--authorization-mode=Node,RBAC',
      // No Endpoints for the `kubernetes` Service: nothing in-cluster reaches 127.0.0.1 of ours.
      '--endpoint-reconciler-type=none',
      `--service-cluster-ip-range=${l.serviceCidr ?? serviceClusterIpRange}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${c.serviceAccount.pub}`,
      `--service-account-signing-key-file=${c.serviceAccount.key}`,
      // Pods on a NotReady/unreachable node are evicted 5s after the taint (default 300s).
      ...(l.standardNodeTimings
        ? []
        : ['--default-not-ready-toleration-seconds=5', '--default-unreachable-toleration-seconds=5']),
      '--enable-admission-plugins=NodeRestriction',
      '--allow-privileged=true',
      '--profiling=false',
      '--event-ttl=1h',
      ...auditFlags(l),
    ],
  ];
}

function componentFlags(kubeconfig: string, port: number, certDir: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${certDir}`,
    '--leader-elect=false',
    '--profiling=false',
  ];
}

export function controllerManagerCommand(l: Layout): [string, string[]] {
  const c = l.certs;
  return [
    join(l.binDir, 'kube-controller-manager'),
    [
      ...componentFlags(l.kubeconfigs.controllerManager, l.ports.controllerManager, join(l.dir, 'controller-manager')),
      '--controllers=*',
      // Each controller acts as its own service account, with tokens signed by our key.
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${c.serviceAccount.key}`,
      `--root-ca-file=${c.ca.cert}`,
      `--cluster-signing-cert-file=${c.ca.cert}`,
      `--cluster-signing-key-file=${c.ca.key}`,
      `--service-cluster-ip-range=${l.serviceCidr ?? serviceClusterIpRange}`,
      // A node whose heartbeat (Lease) is 6s old is NotReady; checked every second.
      ...(l.standardNodeTimings
        ? []
        : ['--node-monitor-period=1s', '--node-monitor-grace-period=6s', '--node-startup-grace-period=10s']),
      // Taint every unhealthy node at once (the default 0.1/s would pace them 10s apart).
      '--node-eviction-rate=100',
      '--secondary-node-eviction-rate=100',
      '--pvclaimbinder-sync-period=2s',
      // Its default is under /usr/libexec, which it would create.
      `--flex-volume-plugin-dir=${join(l.dir, 'controller-manager', 'flexvolume')}`,
    ],
  ];
}

export function schedulerCommand(l: Layout): [string, string[]] {
  return [
    join(l.binDir, 'kube-scheduler'),
    componentFlags(l.kubeconfigs.scheduler, l.ports.scheduler, join(l.dir, 'scheduler')),
  ];
}
