// One local Kubernetes environment: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and the local kubelet, detached, on loopback, described by state.json.
import { existsSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureBinaries, ensureExporter, type Progress } from './binaries.ts';
import { adminClient, ensureStorageClass, waitForDefaultServiceAccount, waitForNodes } from './bootstrap.ts';
import { ensureCerts } from './certs.ts';
import {
  apiserverCommand,
  auditPaths,
  auditPolicy,
  controllerManagerCommand,
  etcdCommand,
  containerServiceCidr,
  loopbackServiceCidr,
  schedulerCommand,
  serviceClusterIpRange,
  type Layout,
} from './control-plane.ts';
import { installCertManager } from './cert-manager.ts';
import { installKnative } from './knative/install.ts';
import { apiServiceIp } from './kubelet/cluster-ips.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { envDir, kubeletMain, repoRoot, validateName, versions } from './paths.ts';
import { allocatePodIpPrefix, allocatePorts, withAllocationLock } from './ports.ts';
import { isRunning, spawnDetached } from './processes.ts';
import { waitReady } from './readiness.ts';
import { allStates, isLive, readState, writeState, type Component, type EnvState } from './state.ts';
import { stopEnvironment } from './stop.ts';

export { stopEnvironment } from './stop.ts';
export type { EnvState } from './state.ts';

export interface Environment extends EnvState {
  /** True when `up` found it already running and started nothing. */
  alreadyUp: boolean;
}

export interface StartOptions {
  name: string;
  nodes?: number;
  /** The environment directory (default `<cache>/envs/<name>`, which then links to it). */
  dir?: string;
  /** Stop the environment once this pid is gone (test environments). */
  owner?: number;
  progress?: Progress;
  /** Zone of each node (topology.kubernetes.io/zone), e.g. an uneven spread; default round-robin over 3. */
  zones?: readonly string[];
  /** The API server writes an audit log (control-plane.ts: auditPaths) for benchmarks. */
  audit?: boolean;
  /** Services get clusterIPs on loopback (loopbackServiceCidr), so webhooks reached through a
   * Service can answer; implied by knative. */
  loopbackServices?: boolean;
  /** Install Knative (CRDs and both webhooks: infra/local/knative/install.ts) once up. */
  knative?: boolean;
  /** The kubelet runs probes this many times less often than pods ask (a fleet on few cores). */
  probePeriodScale?: number;
  /** Kubernetes' default node-failure timings, not this environment's fast ones (control-plane.ts). */
  standardNodeTimings?: boolean;
  /** How the kubelet runs pods: processes at 127.X (default) or OCI containers at 10.X (kubelet/README.md). */
  runtime?: 'process' | 'container';
  /** Install cert-manager once up (cert-manager.ts): the overlays' webhook certificate. */
  certManager?: boolean;
}

export async function startEnvironment(options: StartOptions): Promise<Environment> {
  const name = validateName(options.name);
  const nodes = options.nodes ?? 3;
  const progress = options.progress ?? (() => {});
  const binDir = await ensureBinaries(progress);
  await ensureExporter(progress);
  // 1: reserve ports and a pod IP prefix, or find the environment already up.
  const reserved = await withAllocationLock(async () => {
    const existing = readState(name);
    if (existing && isLive(existing)) {
      const exited = Object.entries(existing.processes)
        .filter(([, p]) => p && !isRunning(p.pid, p.match))
        .map(([c]) => c);
      if (existing.phase === 'up' && exited.length === 0) return { ...existing, alreadyUp: true };
      if (existing.phase === 'starting' && isRunning(existing.starter))
        throw new Error(`environment '${name}' is being started by pid ${existing.starter}`);
      progress(
        `'${name}' is broken (${exited.join(', ') || 'its start was interrupted'}): stopping it to start afresh`,
      );
      await stopEnvironment(name);
    } else if (existing) {
      progress(`cleaning up a stale environment '${name}' (its processes are gone)`);
      await stopEnvironment(name);
    }
    const dir = await prepareDir(name, options.dir);
    const live = allStates().filter((s) => s.name !== name && isLive(s));
    const ports = await allocatePorts(live);
    const state: EnvState = {
      name,
      dir,
      phase: 'starting',
      starter: process.pid,
      owner: options.owner,
      startedAt: new Date().toISOString(),
      server: `https://127.0.0.1:${ports.apiserver}`,
      kubeconfig: join(dir, 'admin.kubeconfig'),
      kubectl: join(binDir, 'kubectl'),
      binDir,
      version: versions().kube,
      ports,
      podIpPrefix: allocatePodIpPrefix(live),
      kubeletControlUrl: `http://127.0.0.1:${ports.kubeletControl}`,
      nodes: [],
      processes: {},
    };
    if (options.loopbackServices || options.knative) state.serviceCidr = loopbackServiceCidr(state.podIpPrefix);
    if (options.runtime === 'container') {
      state.containerRuntime = true;
      state.serviceCidr = containerServiceCidr(state.podIpPrefix);
    }
    await writeState(state);
    return { ...state, alreadyUp: false };
  });
  try {
    if (reserved.alreadyUp) {
      if (options.certManager) await installCertManager(reserved, progress);
      if (!options.knative) return reserved;
      return { ...(await installKnative(name, progress)), alreadyUp: true };
    }
    const { alreadyUp: _, ...state } = reserved;
    const booted = await boot(state, nodes, progress, {
      zones: options.zones ?? [],
      audit: options.audit ?? false,
      probePeriodScale: options.probePeriodScale ?? 1,
      standardNodeTimings: options.standardNodeTimings ?? false,
      runtime: state.containerRuntime ? 'container' : 'process',
    });
    if (options.certManager) await installCertManager(booted, progress);
    return { ...(options.knative ? await installKnative(name, progress) : booted), alreadyUp: false };
  } catch (error) {
    if (reserved.alreadyUp) throw error;
    await stopEnvironment(name, { keepLogs: true }).catch(() => {});
    throw error;
  }
}

async function prepareDir(name: string, custom?: string): Promise<string> {
  const link = envDir(name);
  if (custom && custom !== link) {
    await mkdir(custom, { recursive: true });
    await mkdir(join(link, '..'), { recursive: true });
    await rm(link, { recursive: true, force: true });
    await symlink(custom, link);
  }
  await rm(join(link, 'logs'), { recursive: true, force: true });
  await mkdir(join(link, 'logs'), { recursive: true });
  return link;
}

async function boot(
  state: EnvState,
  nodes: number,
  progress: Progress,
  {
    zones,
    audit,
    probePeriodScale,
    standardNodeTimings,
    runtime,
  }: {
    zones: readonly string[];
    audit: boolean;
    probePeriodScale: number;
    standardNodeTimings: boolean;
    runtime: 'process' | 'container';
  },
): Promise<EnvState> {
  const { dir, ports } = state;
  // 2: certificates and kubeconfigs.
  progress('certificates');
  const certs = await ensureCerts(join(dir, 'certs'), apiServiceIp(state.serviceCidr ?? serviceClusterIpRange));
  const kubeconfig = (file: string, client: typeof certs.admin, user: string) =>
    writeKubeconfig(join(dir, file), { name: state.name, server: state.server, caCert: certs.ca.cert, client, user });
  await kubeconfig('admin.kubeconfig', certs.admin, 'knredis-admin');
  const layout: Layout = {
    dir,
    binDir: state.binDir,
    certs,
    ports,
    ...(state.serviceCidr ? { serviceCidr: state.serviceCidr } : {}),
    kubeconfigs: {
      controllerManager: await kubeconfig(
        'controller-manager.kubeconfig',
        certs.controllerManager,
        'system:kube-controller-manager',
      ),
      scheduler: await kubeconfig('scheduler.kubeconfig', certs.scheduler, 'system:kube-scheduler'),
    },
    audit,
    standardNodeTimings,
    podsInContainers: runtime === 'container',
  };
  if (audit) {
    await mkdir(join(dir, 'apiserver'), { recursive: true });
    await writeFile(auditPaths(dir).policy, auditPolicy);
  }
  const kubeletKubeconfig = await kubeconfig('kubelet.kubeconfig', certs.kubelet, 'knredis-kubelet');
  const start = async (component: Component, [command, args]: [string, string[]], cwd?: string) => {
    const log = join(dir, 'logs', `${component}.log`);
    const pid = spawnDetached(command, args, log, process.env, cwd);
    state.processes[component] = { pid, match: `${dir}/`, log };
    await writeState(state);
    return { what: component, pid, match: `${dir}/`, log };
  };
  const clientTls = { ca: certs.ca.cert, cert: certs.admin.cert, key: certs.admin.key };
  // 3: etcd, then the API server on it.
  progress('etcd');
  await waitReady({ ...(await start('etcd', etcdCommand(layout))), url: `http://127.0.0.1:${ports.etcd}/health` });
  progress('kube-apiserver');
  await waitReady({
    ...(await start('kube-apiserver', apiserverCommand(layout))),
    url: `${state.server}/readyz`,
    tls: clientTls,
  });
  // 4: controller-manager and scheduler (their serving certificates are self-signed).
  // 4: controller-manager, scheduler and the local kubelet (which registers the nodes and
  // runs the pods) start together; their serving certificates are self-signed.
  const withKubelet = existsSync(kubeletMain);
  progress(`kube-controller-manager, kube-scheduler${withKubelet ? `, kubelet (${nodes} nodes)` : ''}`);
  const cm = await start('kube-controller-manager', controllerManagerCommand(layout));
  const scheduler = await start('kube-scheduler', schedulerCommand(layout));
  const kubelet = withKubelet
    ? await start(
        'kubelet',
        [
          process.execPath,
          [
            '--import',
            'tsx',
            kubeletMain,
            '--kubeconfig',
            kubeletKubeconfig,
            '--state-dir',
            join(dir, 'kubelet'),
            '--nodes',
            String(nodes),
            '--pod-ip-prefix',
            state.podIpPrefix,
            '--control-port',
            String(ports.kubeletControl),
            '--env-name',
            state.name,
            ...(zones.length > 0 ? ['--zones', zones.join(',')] : []),
            ...(probePeriodScale > 1 ? ['--probe-period-scale', String(probePeriodScale)] : []),
            ...(runtime === 'container' ? ['--runtime', 'container'] : []),
          ],
        ],
        repoRoot,
      )
    : undefined;
  if (!withKubelet) progress(`no kubelet (${kubeletMain} is missing): control plane only, no nodes`);
  const kc = adminClient(state.kubeconfig);
  const [nodeNames] = await Promise.all([
    kubelet ? waitForNodes(kc, nodes, 60_000, () => isRunning(kubelet.pid, kubelet.match), kubelet.log) : [],
    waitReady({ ...cm, url: `https://127.0.0.1:${ports.controllerManager}/healthz`, tls: {} }),
    waitReady({ ...scheduler, url: `https://127.0.0.1:${ports.scheduler}/healthz`, tls: {} }),
    ensureStorageClass(kc),
    // The controllers run once `default` has its ServiceAccount (pods need it).
    waitForDefaultServiceAccount(kc, 60_000, cm.log),
  ]);
  state.nodes = nodeNames;
  state.phase = 'up';
  await writeState(state);
  return state;
}
