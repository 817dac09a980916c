// Cluster DNS for pods run as containers: CoreDNS (build-coredns.sh) on the host, at the
// gateway of the environment's network, serving cluster.local from the API server with its
// kubernetes plugin, as a cluster's kube-dns Service does. Pods get it as their only
// nameserver with the usual search path (`<ns>.svc.cluster.local svc.cluster.local
// cluster.local`, ndots 5), so Service names, headless Services' pods and StatefulSet pods'
// own names resolve, to ClusterIPs that service-proxy.ts serves (`kubernetes.default.svc` too).
//
// The gateway's address exists once the bridge does, and podman brings the bridge up with the
// first container on it: a sandbox that holds the network (`<env>_network`, at .0.2, which the
// pod address allocator never hands out) comes first. The network is made without podman's
// own DNS, which would hold the gateway's port 53.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../../shared/io/log.ts';
import { corednsBinary } from '../paths.ts';
import { createSandbox, ENV_LABEL } from './podman-runtime.ts';
import { killLeftovers, startProcess, type RunningProcess } from './process-runner.ts';

export const CLUSTER_DOMAIN = 'cluster.local';
/** The port of CoreDNS's ready plugin on the gateway: 200 once the kubernetes plugin synced. */
const READY_PORT = 8181;

export interface ClusterDns {
  /** The pods' nameserver. */
  readonly server: string;
  stop(): Promise<void>;
}

export interface ClusterDnsOptions {
  readonly env: string;
  readonly network: string;
  /** The network's gateway: the host's address on it. */
  readonly gateway: string;
  /** The pods' /16 prefix, `10.X`. */
  readonly podPrefix: string;
  readonly kubeconfig: string;
  readonly stateDir: string;
  readonly log: Logger;
}

/** The Corefile: cluster.local and the reverse zones from the API server, nothing else (pure). */
export function corefile(gateway: string, kubeconfig: string): string {
  return `${CLUSTER_DOMAIN}:53 in-addr.arpa:53 ip6.arpa:53 {
    bind ${gateway}
    errors
    ready ${gateway}:${READY_PORT}
    kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
        kubeconfig ${kubeconfig}
        pods insecure
    }
    loadbalance
    cache 5
}
`;
}

/** What a pod's resolv.conf holds, as podman pod create's flags (pure). */
export function podDnsFlags(server: string, namespace: string): string[] {
  const search = [`${namespace}.svc.${CLUSTER_DOMAIN}`, `svc.${CLUSTER_DOMAIN}`, CLUSTER_DOMAIN];
  return ['--dns', server, ...search.flatMap((s) => ['--dns-search', s]), '--dns-option', 'ndots:5'];
}

export async function startClusterDns(options: ClusterDnsOptions): Promise<ClusterDns> {
  const binary = corednsBinary();
  if (!existsSync(binary))
    throw new Error(`CoreDNS is not built (${binary}): run infra/local/build-coredns.sh (npm test builds it)`);
  const dir = join(options.stateDir, 'coredns');
  await killLeftovers(dir);
  await createSandbox({
    name: `${options.env}_network`,
    network: options.network,
    ip: `${options.podPrefix}.0.2`,
    hostname: 'network',
    labels: { [ENV_LABEL]: options.env },
  });
  await mkdir(dir, { recursive: true });
  const conf = join(dir, 'Corefile');
  await writeFile(conf, corefile(options.gateway, options.kubeconfig));
  const proc = startProcess(
    { program: binary, args: ['-conf', conf], cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
    join(dir, 'coredns.log'),
    join(dir, 'coredns.pid'),
  );
  try {
    await untilReady(proc, `http://${options.gateway}:${READY_PORT}/ready`, join(dir, 'coredns.log'));
  } catch (error) {
    proc.signal('SIGKILL');
    throw error;
  }
  options.log.info({ server: options.gateway, pid: proc.pid }, 'cluster DNS ready');
  return {
    server: options.gateway,
    async stop() {
      proc.signal('SIGTERM');
      await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 3000))]);
      proc.signal('SIGKILL');
      await proc.exited;
    },
  };
}

async function untilReady(proc: RunningProcess, url: string, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!proc.isAlive()) throw new Error(`CoreDNS exited before it was ready (its log: ${logFile})`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`CoreDNS was not ready within 60 s (its log: ${logFile})`);
}
