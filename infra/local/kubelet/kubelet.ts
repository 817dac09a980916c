// The local kubelet: nodes with leases, pods as processes or as OCI containers (--runtime, with
// cluster DNS and ClusterIPs for the latter), a hostPath provisioner, node ports and load
// balancers (service-proxy.ts), and the control API for tests (faults: crashes, frozen pods,
// failed or silent nodes, partitions), started and stopped together.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/io/log.ts';
import { containerServiceCidr } from '../control-plane.ts';
import { exporterBinary } from '../paths.ts';
import type { KubeletSettings } from './cli-args.ts';
import { startControlServer } from './control-server.ts';
import { nodeAddress } from './ip-allocation.ts';
import { IpAllocator } from './ip-allocator.ts';
import { kubeClients } from './kube.ts';
import { NodeAgent } from './node-agent.ts';
import { ObjectCache } from './object-cache.ts';
import { localNodes } from './node-spec.ts';
import { cut, heal, partitionTag } from './partition.ts';
import { PodManager } from './pod-manager.ts';
import type { PodRuntime } from './pod-worker.ts';
import { startClusterDns } from './cluster-dns.ts';
import { apiServiceIp, clusterIpPrefix } from './cluster-ips.ts';
import { ensureNetwork, removeEnvironment } from './podman-runtime.ts';
import { killLeftovers } from './process-runner.ts';
import { Provisioner } from './provisioner.ts';
import { ServiceProxy } from './service-proxy.ts';

export interface RunningKubelet {
  readonly controlUrl: string;
  readonly nodes: readonly string[];
  stop(): Promise<void>;
}

export async function startKubelet(settings: KubeletSettings, log: Logger): Promise<RunningKubelet> {
  const stateDir = resolve(settings.stateDir);
  mkdirSync(stateDir, { recursive: true });
  // 1: processes a kubelet killed without warning left behind.
  const leftovers = await killLeftovers(join(stateDir, 'pods'));
  if (leftovers.length > 0) log.warn({ pids: leftovers }, 'stopped processes left by an earlier kubelet');
  const binaries = {
    redisServer: which('redis-server'),
    redisCli: which('redis-cli'),
    redisExporter: exporterBinary(),
  };
  const clients = kubeClients(settings.kubeconfig);
  const nodes = localNodes(settings.nodes, (i) => nodeAddress(settings.podIpPrefix, i), settings.zones);
  const tag = partitionTag(settings.envName);
  // Rules an earlier kubelet of this environment left (it was killed before it could heal).
  await heal(tag);
  const runtime = await startRuntime(settings, log);
  const failed = new Set<string>();
  const objects = new ObjectCache(clients, log.child({ part: 'objects' }));
  const pods = new PodManager({
    clients,
    objects,
    log,
    stateDir,
    nodes: new Map(nodes.map((n) => [n.name, n.address])),
    allocator: new IpAllocator(runtime.podPrefix, stateDir),
    backoff: { baseMs: settings.backoffBaseMs, capMs: settings.backoffCapMs },
    binaries,
    probePeriodScale: settings.probePeriodScale,
    runtime: runtime.pods,
  });
  const agent = new NodeAgent(clients, log, nodes, {
    heartbeatMs: settings.heartbeatMs,
    statusEvery: 5,
    controlPort: settings.controlPort,
  });
  // 2: the control API first, so the Node objects can name its port.
  const control = await startControlServer(
    {
      pods: () => pods.pods(),
      nodes: () => nodes.map((n) => ({ name: n.name, address: n.address, failed: failed.has(n.name) })),
      signalPod(namespace, name, signal, container) {
        const worker = pods.find(namespace, name);
        if (!worker) return false;
        const targets = worker.containers.filter((c) => c.running && (container === undefined || c.name === container));
        return targets.map((c) => c.signal(signal)).some(Boolean);
      },
      async failNode(name) {
        if (!agent.fail(name)) return false;
        failed.add(name);
        await pods.failNode(name);
        return true;
      },
      async silenceNode(name) {
        if (!agent.fail(name)) return false;
        pods.isolateNode(name);
        return true;
      },
      partition(groups) {
        // With containers the host's own clients come from the bridge's gateway.
        const host = runtime.pods.kind === 'container' ? runtime.pods.gateway : '127.0.0.1';
        const addressOf = (member: string) => {
          if (member === '127.0.0.1') return host;
          if (!member.includes('/')) return member;
          const [namespace = '', name = ''] = member.split('/');
          const address = pods.find(namespace, name)?.address;
          if (!address) throw new Error(`pod ${member} has no address on this kubelet`);
          return address;
        };
        return cut(
          groups.map((g) => g.map(addressOf)),
          tag,
          runtime.pods.kind === 'container' ? ['INPUT', 'FORWARD', 'OUTPUT'] : ['INPUT'],
        );
      },
      heal: () => heal(tag),
      async restoreNode(name) {
        if (!agent.has(name)) return false;
        failed.delete(name);
        await agent.restore(name);
        pods.restoreNode(name);
        return true;
      },
    },
    settings.controlPort,
    log,
  );
  // 3: nodes, then the provisioner and the pods bound to the nodes.
  await agent.register();
  const provisioner = new Provisioner(clients, log, stateDir);
  await provisioner.start();
  await objects.start();
  // 4: NodePort and LoadBalancer Services, reached from the host; where pods are containers,
  // every Service's ClusterIP too (cluster-ips.ts), the `kubernetes` Service's to the API server.
  // Before the pods start, so that their in-cluster clients find the API server at once.
  const services = new ServiceProxy(
    clients,
    log.child({ part: 'service-proxy' }),
    nodes,
    settings.podIpPrefix,
    () => pods.listPods(),
    runtime.pods.kind === 'container'
      ? { prefix: clusterIpPrefix(containerServiceCidr(settings.podIpPrefix)), apiServer: runtime.apiServer }
      : undefined,
  );
  await services.start();
  await pods.start();
  log.info({ nodes: nodes.map((n) => n.name), controlUrl: control.url }, 'kubelet ready');
  return {
    controlUrl: control.url,
    nodes: nodes.map((n) => n.name),
    async stop() {
      agent.stop();
      await services.stop();
      await provisioner.stop();
      await pods.stop(3000);
      await objects.stop();
      await control.close();
      await heal(tag);
      await runtime.stop();
    },
  };
}

/**
 * The pods' runtime and address prefix. Containers get the environment's own podman network,
 * 10.X.0.0/16 for the environment's 127.X: outside the loopback range, which EndpointSlices
 * refuse. Pods an earlier kubelet of this environment left are removed first.
 */
async function startRuntime(
  settings: KubeletSettings,
  log: Logger,
): Promise<{
  readonly pods: PodRuntime;
  readonly podPrefix: string;
  /** Where the API server listens (containers only). */
  readonly apiServer?: { readonly host: string; readonly port: number };
  stop(): Promise<void>;
}> {
  if (settings.runtime === 'process')
    return { pods: { kind: 'process' }, podPrefix: settings.podIpPrefix, stop: () => Promise.resolve() };
  const podPrefix = `10.${settings.podIpPrefix.split('.')[1]}`;
  const network = `knredis-${settings.envName}`;
  await removeEnvironment(settings.envName);
  const { gateway } = await ensureNetwork({ name: network, subnet: `${podPrefix}.0.0/16`, env: settings.envName });
  // Where the API server listens on the host: the `kubernetes` Service's endpoint.
  const kc = new KubeConfig();
  kc.loadFromFile(settings.kubeconfig);
  const server = new URL(kc.getCurrentCluster()?.server ?? '');
  const apiServer = { host: server.hostname, port: Number(server.port || 443) };
  const apiServiceAt = apiServiceIp(containerServiceCidr(settings.podIpPrefix));
  const dns = await startClusterDns({
    env: settings.envName,
    network,
    gateway,
    podPrefix,
    kubeconfig: resolve(settings.kubeconfig),
    stateDir: resolve(settings.stateDir),
    log,
  });
  log.info({ network, subnet: `${podPrefix}.0.0/16`, gateway, apiServiceAt }, 'pods run as containers');
  return {
    pods: { kind: 'container', network, env: settings.envName, gateway, apiServiceIp: apiServiceAt, dns: dns.server },
    podPrefix,
    apiServer,
    async stop() {
      await dns.stop();
      await removeEnvironment(settings.envName);
    },
  };
}

function which(command: string): string {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`${command} is not on PATH: the local kubelet runs Redis pods with it (see README.md, "Set-up")`);
  }
}
