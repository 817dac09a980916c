// One pod on a local node, from first sight to the final delete. Each sync starts from the
// latest pod object and what its processes do (level-based), one sync at a time:
//   gone -> kill; deleting -> preStop/SIGTERM/grace/SIGKILL + final delete;
//   otherwise address -> volumes -> init containers in order -> containers -> status.
import { existsSync } from 'node:fs';
import { mkdir, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1ConfigMap, V1Container, V1Pod, V1Secret } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/io/log.ts';
import { ContainerRunner, StartRefused, type Launch } from './container-runner.ts';
import { podDnsFlags } from './cluster-dns.ts';
import { planContainer } from './container-plan.ts';
import { applyFsGroup } from './fs-group.ts';
import { referencedSources, resolveEnv } from './env.ts';
import { describe, isNotFound, strategicMerge, type KubeClients } from './kube.ts';
import type { ObjectSource } from './object-cache.ts';
import { scaleProbes } from './probes.ts';
import { planExec, planProcess, podRedisArgs, type ProcessPlan } from './process-plan.ts';
import { ENV_LABEL, createSandbox, execByRuntime, removeSandbox, startContainer } from './podman-runtime.ts';
import { runToCompletion, startProcess } from './process-runner.ts';
import type { PathMapping } from './path-map.ts';
import type { BackoffSettings } from './restart-policy.ts';
import { computeStatus, statusSignature } from './status.ts';
import { mountMappings, prepareVolumes, removePodDir } from './volumes.ts';

/**
 * How the kubelet runs pods: as processes on the host at 127.X addresses, or as OCI containers
 * (podman-runtime.ts), each pod on the environment's network with its own namespace.
 */
export type PodRuntime =
  | { readonly kind: 'process' }
  | {
      readonly kind: 'container';
      readonly network: string;
      readonly env: string;
      /** The host on the pods' network. */
      readonly gateway: string;
      /** The `kubernetes` Service's ClusterIP, which the service proxy forwards to the API server. */
      readonly apiServiceIp: string;
      /** The pods' nameserver (cluster-dns.ts). */
      readonly dns: string;
    };

export interface WorkerDeps {
  readonly runtime: PodRuntime;
  readonly clients: KubeClients;
  /** The ConfigMaps and Secrets of volumes and env (watched, object-cache.ts). */
  readonly objects: ObjectSource;
  readonly log: Logger;
  readonly stateDir: string;
  readonly hostIP: string;
  readonly backoff: BackoffSettings;
  /** Absolute paths of the host's redis-server and redis-cli, for the pod's shims; where redis_exporter is built. */
  readonly binaries: { redisServer: string; redisCli: string; redisExporter: string };
  /** Probes run every periodSeconds x this (cli-args.ts). */
  readonly probePeriodScale: number;
  readonly allocate: (uid: string) => string;
  readonly release: (uid: string) => void;
  /** Called once the worker has nothing left to do (pod gone and cleaned up). */
  readonly onFinished: () => void;
}

const syncEveryMs = 1000;
/** Volumes are refreshed when the pod or an object of its namespace changed, and at least this often. */
const refreshVolumesEveryMs = 60_000;

export class PodWorker {
  readonly uid: string;
  private pod: V1Pod;
  private gone = false;
  private suspended = false;
  private finished = false;
  private syncing = false;
  private dirty = false;
  private readonly timer: NodeJS.Timeout;
  private readonly init: ContainerRunner[];
  private readonly main: ContainerRunner[];
  private podIP: string | undefined;
  /** The pod's sandbox (container runtime), once made. */
  private sandbox: string | undefined;
  private hostDirs: Map<string, string> | undefined;
  private volumesAt = 0;
  /** What the volumes were made from: the namespace's objects' generation and the pod's resourceVersion. */
  private volumesFrom = '';
  private lastWritten = '';
  private lastWriteAt = 0;
  private readonly startTime: number;
  private readonly podDir: string;
  private readonly log: Logger;

  constructor(
    pod: V1Pod,
    private readonly deps: WorkerDeps,
    suspended: boolean,
  ) {
    this.pod = pod;
    this.uid = pod.metadata?.uid ?? '';
    this.suspended = suspended;
    this.podDir = join(deps.stateDir, 'pods', this.uid);
    this.log = deps.log.child({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, uid: this.uid });
    this.startTime = pod.status?.startTime ? new Date(pod.status.startTime).getTime() : Date.now();
    const restartPolicy = pod.spec?.restartPolicy ?? 'Always';
    const runner = (c: V1Container, isInit: boolean) =>
      new ContainerRunner(scaleProbes(c, deps.probePeriodScale), isInit, {
        log: this.log,
        restartPolicy,
        backoff: deps.backoff,
        onChange: () => this.kick(),
      });
    this.init = (pod.spec?.initContainers ?? []).map((c) => runner(c, true));
    this.main = (pod.spec?.containers ?? []).map((c) => runner(c, false));
    // A kubelet restart keeps counting restarts where the status left off.
    for (const r of [...this.init, ...this.main]) {
      const old = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find(
        (s) => s.name === r.name,
      );
      if (old)
        r.adopt(
          old.restartCount ?? 0,
          old.state?.running !== undefined || old.state?.terminated !== undefined || (old.restartCount ?? 0) > 0,
        );
    }
    this.timer = setInterval(() => this.kick(), syncEveryMs);
    this.kick();
  }

  get namespace(): string {
    return this.pod.metadata?.namespace ?? '';
  }
  get name(): string {
    return this.pod.metadata?.name ?? '';
  }
  get nodeName(): string {
    return this.pod.spec?.nodeName ?? '';
  }
  get address(): string | undefined {
    return this.podIP;
  }
  get containers(): readonly ContainerRunner[] {
    return [...this.init, ...this.main];
  }

  update(pod: V1Pod): void {
    this.pod = pod;
    this.kick();
  }
  markGone(): void {
    this.gone = true;
    this.kick();
  }

  /** Node failed: every process dies at once, nothing is written until resume(). */
  async suspend(): Promise<void> {
    this.suspended = true;
    await Promise.all(this.containers.map((c) => c.stop(0, false)));
  }

  /** Node cut off from the API server: the processes keep running, but nothing is written and
   * nothing started or stopped until resume(), whatever the API says meanwhile. */
  isolate(): void {
    this.suspended = true;
  }

  resume(): void {
    this.suspended = false;
    for (const c of this.containers) c.resume();
    this.lastWritten = '';
    this.kick();
  }

  /** Kubelet shutdown: stop the processes (SIGTERM, then SIGKILL), leave the API alone. */
  async shutdown(graceMs: number): Promise<void> {
    this.finished = true;
    clearInterval(this.timer);
    await Promise.all(this.containers.map((c) => c.stop(graceMs, false)));
  }

  kick(): void {
    if (this.finished) return;
    if (this.syncing) {
      this.dirty = true;
      return;
    }
    this.syncing = true;
    void this.sync()
      .catch((err) => this.log.warn({ err: describe(err) }, 'pod sync failed; retrying'))
      .finally(() => {
        this.syncing = false;
        if (this.dirty && !this.finished) {
          this.dirty = false;
          this.kick();
        }
      });
  }

  private async sync(): Promise<void> {
    if (this.finished || this.suspended) return;
    // 1: the pod is gone from the API (deleted with grace 0 by someone): just kill.
    if (this.gone) return this.finish(0, false);
    // 2: graceful deletion, then the final delete.
    if (this.pod.metadata?.deletionTimestamp) {
      const grace = this.pod.metadata.deletionGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30;
      return this.finish(grace * 1000, true);
    }
    const phase = this.pod.status?.phase;
    if ((phase === 'Succeeded' || phase === 'Failed') && !this.containers.some((c) => c.running)) return;
    // 3: address and volumes.
    this.podIP ??= this.deps.allocate(this.uid);
    if (this.deps.runtime.kind === 'container' && !this.sandbox) await this.createSandbox(this.deps.runtime);
    const now = Date.now();
    const from = `${this.deps.objects.generation(this.namespace)}/${this.pod.metadata?.resourceVersion ?? ''}`;
    if (!this.hostDirs || from !== this.volumesFrom || now - this.volumesAt > refreshVolumesEveryMs) {
      if (!this.hostDirs && this.deps.runtime.kind === 'process') await this.writeShims();
      const volumes = await prepareVolumes(this.deps.clients, this.deps.objects, this.pod, this.podDir, this.hostDirs);
      if (!volumes.ok) {
        for (const c of this.containers) if (!c.running) c.wait(volumes.reason, volumes.message, 0);
        return this.writeStatus();
      }
      if (this.deps.runtime.kind === 'container') await applyFsGroup(this.pod, volumes.hostDirs);
      this.hostDirs = volumes.hostDirs;
      this.volumesAt = now;
      this.volumesFrom = from;
    }
    // 4: init containers one after the other, then every container.
    const pendingInit = this.init.find((c) => !c.succeeded);
    const toStart = pendingInit ? [pendingInit] : this.main;
    for (const c of toStart) if (c.canStart(Date.now())) await this.startContainer(c);
    await this.writeStatus();
  }

  private async startContainer(c: ContainerRunner): Promise<void> {
    const hostDirs = this.hostDirs ?? new Map<string, string>();
    const env = resolveEnv(c.spec, this.envSources(c.spec));
    if (!env.ok) return c.wait('CreateContainerConfigError', env.message, 2000);
    const mappings = mountMappings(c.spec, hostDirs);
    const podIP = this.podIP ?? '';
    const logFile = join(this.podDir, 'logs', `${c.name}.log`);
    if (this.deps.runtime.kind === 'container') {
      return c.start(this.containerLaunch(c, env.env, mappings, logFile), podIP);
    }
    const planned = planProcess({
      container: c.spec,
      podIP,
      env: env.env,
      mappings,
      rootDir: join(this.podDir, 'rootfs', c.name),
      shimDir: join(this.podDir, 'bin'),
      hostPath: process.env.PATH ?? '/usr/bin:/bin',
      // Looked for at each start: a build finished after the kubelet started counts.
      redisExporter: existsSync(this.deps.binaries.redisExporter) ? this.deps.binaries.redisExporter : undefined,
    });
    if (!planned.ok) return c.wait(planned.reason, planned.message, 5000);
    return c.start(processLaunch(planned.plan, mappings, logFile, join(this.podDir, 'pids', `${c.name}.pid`)), podIP);
  }

  /** The container in the pod's sandbox, from its image. */
  private containerLaunch(
    c: ContainerRunner,
    env: Readonly<Record<string, string>>,
    mappings: readonly PathMapping[],
    logFile: string,
  ): Launch {
    const sandbox = this.sandbox ?? '';
    const name = `${sandbox}_${c.name}`;
    const plan = planContainer({ pod: this.pod, container: c.spec, env: { ...this.apiServerEnv(), ...env }, mappings });
    // The running container's id, which the runtime execs into (a restart makes another).
    let containerID: string | undefined;
    return {
      program: plan.image,
      start: async () => {
        try {
          const started = await startContainer({ ...plan, name, sandbox, labels: this.sandboxLabels(), logFile });
          containerID = started.containerID;
          return started;
        } catch (error) {
          const message = (error as Error).message;
          throw /image not known|no such image|image.*not found/i.test(message)
            ? new StartRefused(
                'ErrImageNeverPull',
                `image "${plan.image}" is not on this machine, and no registry is reachable here: build it (infra/image/)`,
              )
            : new StartRefused('RunContainerError', message);
        }
      },
      exec: (command, timeoutMs) =>
        containerID
          ? execByRuntime(containerID, command, timeoutMs)
          : Promise.resolve({ exitCode: -1, timedOut: false, output: `container ${c.name} has not started` }),
    };
  }

  /** A podman pod holding the pod's network namespace, at the address the kubelet gave it. */
  private async createSandbox(runtime: PodRuntime & { kind: 'container' }): Promise<void> {
    const name = `${runtime.env}_${this.namespace}_${this.name}_${this.uid.slice(0, 8)}`;
    await createSandbox({
      name,
      network: runtime.network,
      ip: this.podIP ?? '',
      hostname: this.pod.spec?.hostname ?? this.name,
      labels: this.sandboxLabels(),
      dnsFlags: podDnsFlags(runtime.dns, this.namespace),
    });
    this.sandbox = name;
    this.log.info({ sandbox: name, podIP: this.podIP }, 'pod sandbox created');
  }

  /**
   * What a kubelet gives every container about the API server, for in-cluster clients: the
   * `kubernetes` Service, at its ClusterIP and port 443 (in the API server's certificate, as
   * in any cluster). The container's own env wins.
   */
  private apiServerEnv(): Record<string, string> {
    if (this.deps.runtime.kind !== 'container') return {};
    return apiServiceEnv(this.deps.runtime.apiServiceIp);
  }

  private sandboxLabels(): Record<string, string> {
    const env = this.deps.runtime.kind === 'container' ? this.deps.runtime.env : '';
    return { [ENV_LABEL]: env, 'knredis.pod-uid': this.uid };
  }

  private envSources(container: V1Container) {
    const refs = referencedSources([container]);
    const { objects } = this.deps;
    const configMaps = new Map<string, V1ConfigMap | null>(
      [...refs.configMaps].map((name) => [name, objects.configMap(this.namespace, name) ?? null]),
    );
    const secrets = new Map<string, V1Secret | null>(
      [...refs.secrets].map((name) => [name, objects.secret(this.namespace, name) ?? null]),
    );
    return { pod: this.pod, podIP: this.podIP ?? '', hostIP: this.deps.hostIP, configMaps, secrets };
  }

  /** redis-cli and redis-server found on the pod's PATH talk to and listen on the pod's IP. */
  private async writeShims(): Promise<void> {
    const bin = join(this.podDir, 'bin');
    await mkdir(bin, { recursive: true });
    const { redisCli, redisServer } = this.deps.binaries;
    const shims = {
      'redis-cli': `#!/bin/sh\n# The pod's own address stands for localhost; a later -h wins.\nexec ${redisCli} -h "$KNREDIS_POD_IP" "$@"\n`,
      'redis-server': `#!/bin/sh\nexec ${redisServer} "$@" ${podRedisArgs('"$KNREDIS_POD_IP"').join(' ')}\n`,
    };
    for (const [name, text] of Object.entries(shims)) {
      await writeFile(join(bin, name), text);
      await chmod(join(bin, name), 0o755);
    }
  }

  private async writeStatus(): Promise<void> {
    if (this.suspended || this.gone) return;
    const view = {
      hostIP: this.deps.hostIP,
      initContainers: this.init.map((c) => c.view()),
      containers: this.main.map((c) => c.view()),
      ...(this.podIP ? { podIP: this.podIP } : {}),
    };
    const status = computeStatus(this.pod, view, Date.now(), this.startTime);
    const signature = statusSignature(status);
    if (signature === statusSignature(this.pod.status)) return;
    if (signature === this.lastWritten && Date.now() - this.lastWriteAt < 3000) return;
    try {
      const updated = await this.deps.clients.core.patchNamespacedPodStatus(
        { name: this.name, namespace: this.namespace, body: { status } },
        strategicMerge,
      );
      if (updated.metadata?.uid === this.uid) this.pod = { ...this.pod, status: updated.status };
      this.lastWritten = signature;
      this.lastWriteAt = Date.now();
      this.log.debug(
        { phase: status.phase, ready: status.conditions.find((c) => c.type === 'Ready')?.status },
        'status written',
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private async finish(graceMs: number, finalDelete: boolean): Promise<void> {
    this.log.info({ graceMs, finalDelete }, 'stopping pod');
    await Promise.all([...this.main.map((c) => c.stop(graceMs, true)), ...this.init.map((c) => c.stop(0, false))]);
    if (finalDelete) {
      try {
        await this.deps.clients.core.deleteNamespacedPod({
          name: this.name,
          namespace: this.namespace,
          gracePeriodSeconds: 0,
          body: { gracePeriodSeconds: 0, preconditions: { uid: this.uid } },
        });
      } catch (err) {
        if (!isNotFound(err) && describe(err).indexOf('409') < 0) throw err;
      }
    }
    this.finished = true;
    clearInterval(this.timer);
    if (this.sandbox) await removeSandbox(this.sandbox);
    await removePodDir(this.podDir);
    this.deps.release(this.uid);
    this.log.info('pod stopped and removed');
    this.deps.onFinished();
  }
}

/** The container as a process on the host (process-plan.ts). */
function processLaunch(plan: ProcessPlan, mappings: readonly PathMapping[], logFile: string, pidFile: string): Launch {
  return {
    program: plan.program,
    start: () => Promise.resolve(startProcess(plan, logFile, pidFile)),
    exec: (command, timeoutMs) => runToCompletion(planExec(command, plan, mappings), timeoutMs),
  };
}

/** The `kubernetes` Service's variables, as a kubelet writes them for a Service at ip:443. */
export function apiServiceEnv(ip: string): Record<string, string> {
  const port = '443';
  const url = `tcp://${ip}:${port}`;
  return {
    KUBERNETES_SERVICE_HOST: ip,
    KUBERNETES_SERVICE_PORT: port,
    KUBERNETES_SERVICE_PORT_HTTPS: port,
    KUBERNETES_PORT: url,
    KUBERNETES_PORT_443_TCP: url,
    KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
    KUBERNETES_PORT_443_TCP_PORT: port,
    KUBERNETES_PORT_443_TCP_ADDR: ip,
  };
}
