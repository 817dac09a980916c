// What kube-proxy and a cloud's load-balancer controller do for Services that reach pods from
// outside: NodePort and LoadBalancer Services, as a userspace TCP proxy; and, where pods are
// containers, every Service's ClusterIP, put on the host (cluster-ips.ts), which the pods reach
// through their default route.
//   NodePort      every node listens on <node address>:<nodePort> for each port.
//   LoadBalancer  as NodePort, and the Service gets a load balancer IP, 127.X.255.<n> (pods use
//                 127.X.1-254.*, nodes 127.X.0.*), written to status.loadBalancer.ingress,
//                 that listens on <ip>:<port>.
//   ClusterIP     (container environments) <clusterIP>:<port> for each port of every Service
//                 with a ClusterIP, of any type.
// A connection goes to one endpoint picked at random when it opens: a pod in the Service's
// namespace whose labels match its selector, with an address, not being deleted, and Ready
// unless the Service publishes not-ready addresses; for `default/kubernetes`, which has no
// selector, the API server on the host (the pods' in-cluster clients reach it there, at the
// address their KUBERNETES_SERVICE_HOST names). externalTrafficPolicy is not applied: any
// node forwards (Cluster), and the pod sees the proxy's address as its peer.
import type { V1Pod, V1Service, V1ServicePort } from '@kubernetes/client-node';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '../../../shared/io/log.ts';
import { describe, inform, mergePatch, type Informed, type KubeClients } from './kube.ts';
import { addClusterIp, removeClusterIp, removeClusterIps } from './cluster-ips.ts';
import type { LocalNode } from './node-spec.ts';

/** The Service in front of the API server. */
const API_SERVICE = 'default/kubernetes';

interface Listener {
  readonly server: Server;
  /** namespace/name of the Service and the port it serves. */
  readonly service: string;
  readonly port: number;
  readonly sockets: Set<Socket>;
}

/** The load balancer addresses of an environment: 127.X.255.1 to 127.X.255.254. */
export function loadBalancerAddress(prefix: string, index: number): string {
  if (index < 1 || index > 254) throw new Error(`load balancer index ${index} out of range 1..254`);
  return `${prefix}.255.${index}`;
}

export function matchesSelector(pod: V1Pod, selector: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/** The addresses a Service's connections may go to (see the header). */
export function endpointsOf(service: V1Service, pods: readonly V1Pod[]): string[] {
  const namespace = service.metadata?.namespace;
  const notReady = service.spec?.publishNotReadyAddresses === true;
  return pods
    .filter((p) => p.metadata?.namespace === namespace && matchesSelector(p, service.spec?.selector))
    .filter((p) => p.status?.podIP && !p.metadata?.deletionTimestamp)
    .filter((p) => notReady || p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
    .map((p) => p.status?.podIP as string);
}

/** The pod's port a Service port forwards to (a named targetPort is looked up in the pod's containers). */
function targetPortOf(port: V1ServicePort, pod: V1Pod | undefined): number | undefined {
  const target = port.targetPort as unknown as number | string | undefined;
  if (target === undefined) return port.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod?.spec?.containers ?? [])
    for (const p of c.ports ?? []) if (p.name === target) return p.containerPort;
  return undefined;
}

export class ServiceProxy {
  private services: (Informed<V1Service> & { started: Promise<void> }) | undefined;
  private readonly listeners = new Map<string, Listener>();
  /** Service uid -> its load balancer address. */
  private readonly balancers = new Map<string, string>();
  private syncing: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly clusterIps: string | undefined;
  private readonly apiServer: { readonly host: string; readonly port: number } | undefined;

  constructor(
    private readonly clients: KubeClients,
    private readonly log: Logger,
    private readonly nodes: readonly LocalNode[],
    private readonly prefix: string,
    private readonly pods: () => readonly V1Pod[],
    /** Where ClusterIPs are proxied (container environments): their prefix (`172.16.X`), and
     * the API server's address on the host, the `kubernetes` Service's one endpoint. */
    clusterIps?: { readonly prefix: string; readonly apiServer?: { readonly host: string; readonly port: number } },
  ) {
    this.clusterIps = clusterIps?.prefix;
    this.apiServer = clusterIps?.apiServer;
  }

  async start(): Promise<void> {
    if (this.clusterIps) await removeClusterIps(this.clusterIps);
    this.services = inform<V1Service>(
      this.clients,
      this.log,
      '/api/v1/services',
      () => this.clients.core.listServiceForAllNamespaces(),
      () => this.schedule(),
    );
    await this.services.started;
    this.schedule();
    await this.syncing;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.services?.stop();
    await this.syncing;
    await Promise.all([...this.listeners.keys()].map((key) => this.close(key)));
    if (this.clusterIps) await removeClusterIps(this.clusterIps);
  }

  /** One sync at a time, each seeing the latest Services. */
  private schedule(): void {
    this.syncing = this.syncing
      .then(() => (this.stopped ? undefined : this.sync()))
      .catch((error: unknown) => this.log.warn({ err: describe(error) }, 'service proxy sync failed'));
  }

  private async sync(): Promise<void> {
    const services = this.services?.list() ?? [];
    const wanted = new Map<string, { service: string; port: number }>();
    for (const service of services) {
      const id = `${service.metadata?.namespace}/${service.metadata?.name}`;
      const clusterIP = this.clusterIpOf(service);
      const outside = service.spec?.type === 'NodePort' || service.spec?.type === 'LoadBalancer';
      if (!outside && !clusterIP) continue;
      const balancer = service.spec?.type === 'LoadBalancer' ? await this.balancerOf(service) : undefined;
      for (const port of service.spec?.ports ?? []) {
        if ((port.protocol ?? 'TCP') !== 'TCP') continue;
        if (clusterIP) wanted.set(`${clusterIP}:${port.port}`, { service: id, port: port.port });
        if (!outside) continue;
        if (port.nodePort)
          for (const node of this.nodes)
            wanted.set(`${node.address}:${port.nodePort}`, { service: id, port: port.port });
        if (balancer) wanted.set(`${balancer}:${port.port}`, { service: id, port: port.port });
      }
    }
    for (const [key, listener] of this.listeners) {
      const want = wanted.get(key);
      if (!want || want.service !== listener.service || want.port !== listener.port) await this.close(key);
    }
    for (const [key, want] of wanted) if (!this.listeners.has(key)) await this.open(key, want.service, want.port);
  }

  /** The Service's ClusterIP where this proxy serves them, else undefined (headless: None). */
  private clusterIpOf(service: V1Service): string | undefined {
    const ip = service.spec?.clusterIP;
    return this.clusterIps && ip?.startsWith(`${this.clusterIps}.`) ? ip : undefined;
  }

  /** The Service's load balancer address: the one in its status, else the next free one, written there. */
  private async balancerOf(service: V1Service): Promise<string | undefined> {
    const uid = service.metadata?.uid ?? '';
    const recorded = service.status?.loadBalancer?.ingress?.find((i) => i.ip?.startsWith(`${this.prefix}.255.`))?.ip;
    if (recorded) {
      this.balancers.set(uid, recorded);
      return recorded;
    }
    const live = new Set((this.services?.list() ?? []).map((s) => s.metadata?.uid ?? ''));
    for (const known of this.balancers.keys()) if (!live.has(known)) this.balancers.delete(known);
    let ip = this.balancers.get(uid);
    if (!ip) {
      const used = new Set(this.balancers.values());
      for (const s of this.services?.list() ?? [])
        for (const i of s.status?.loadBalancer?.ingress ?? []) if (i.ip) used.add(i.ip);
      for (let n = 1; n <= 254 && !ip; n++)
        if (!used.has(loadBalancerAddress(this.prefix, n))) ip = loadBalancerAddress(this.prefix, n);
      if (!ip) {
        this.log.warn({ service: service.metadata?.name }, 'no load balancer address left');
        return undefined;
      }
      this.balancers.set(uid, ip);
    }
    try {
      await this.clients.core.patchNamespacedServiceStatus(
        {
          name: service.metadata?.name ?? '',
          namespace: service.metadata?.namespace ?? '',
          body: { status: { loadBalancer: { ingress: [{ ip, ipMode: 'VIP' }] } } },
        },
        mergePatch,
      );
      this.log.info(
        { service: `${service.metadata?.namespace}/${service.metadata?.name}`, ip },
        'load balancer address',
      );
    } catch (error) {
      this.log.warn(
        { service: service.metadata?.name, err: describe(error) },
        'could not write the load balancer address',
      );
    }
    return ip;
  }

  private async open(key: string, service: string, port: number): Promise<void> {
    const at = key.lastIndexOf(':');
    const host = key.slice(0, at);
    const listenPort = Number(key.slice(at + 1));
    const sockets = new Set<Socket>();
    const server = createServer((socket) => this.forward(socket, service, port, sockets));
    const isClusterIp = !!this.clusterIps && host.startsWith(`${this.clusterIps}.`);
    try {
      if (isClusterIp) await addClusterIp(host);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listenPort, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.log.warn({ service, at: key, err: (error as Error).message }, 'cannot listen for a node port');
      return;
    }
    server.on('error', (error) => this.log.warn({ service, at: key, err: error.message }, 'node port listener'));
    this.listeners.set(key, { server, service, port, sockets });
    this.log.info({ service, at: key, port }, 'forwarding');
  }

  private async close(key: string): Promise<void> {
    const listener = this.listeners.get(key);
    if (!listener) return;
    this.listeners.delete(key);
    for (const socket of listener.sockets) socket.destroy();
    await new Promise((resolve) => listener.server.close(resolve));
    const host = key.slice(0, key.lastIndexOf(':'));
    const stillUsed = [...this.listeners.keys()].some((k) => k.startsWith(`${host}:`));
    if (this.clusterIps && host.startsWith(`${this.clusterIps}.`) && !stillUsed) await removeClusterIp(host);
  }

  private forward(socket: Socket, id: string, servicePort: number, sockets: Set<Socket>): void {
    const to = this.endpointFor(id, servicePort);
    if (!to) {
      socket.destroy(); // no endpoint: refused, as kube-proxy rejects
      return;
    }
    const upstream = connect(to.port, to.host);
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    const close = () => {
      socket.destroy();
      upstream.destroy();
      sockets.delete(socket);
      sockets.delete(upstream);
    };
    socket.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  }

  /** Where a new connection to the Service's port goes: one of its endpoints, picked at random.
   * The `kubernetes` Service has no selector: the API server's endpoint reconciler would publish
   * its address; here the API server listens on the host, which this proxy reaches. */
  private endpointFor(id: string, servicePort: number): { host: string; port: number } | undefined {
    if (id === API_SERVICE) return this.apiServer;
    const [namespace, name] = id.split('/');
    const service = this.services?.get(name ?? '', namespace);
    const port = service?.spec?.ports?.find((p) => p.port === servicePort);
    const pods = this.pods();
    const endpoints = service && port ? endpointsOf(service, pods) : [];
    const ip = endpoints[Math.floor(Math.random() * endpoints.length)];
    const pod = pods.find((p) => p.status?.podIP === ip && p.metadata?.namespace === namespace);
    const target = port ? targetPortOf(port, pod) : undefined;
    return ip && target !== undefined ? { host: ip, port: target } : undefined;
  }
}
