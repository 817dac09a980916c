// Pods as OCI containers, for the local kubelet's container runtime: podman with runc. A pod is a
// podman pod on its environment's own bridge network, so it has its own network namespace, its
// own address (chosen by the kubelet) and its own localhost, shared by its containers; each
// container is a podman container in it, from a real image, with its volumes bind-mounted, its
// user, capabilities and memory and CPU limits applied by runc. The host reaches the pods at their
// addresses, and the pods reach the host at the network's gateway.
//
// A started container is a RunningProcess (process-runner.ts), as a process of the process
// runtime is: `podman wait` is the process the kubelet waits on.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { constants } from 'node:os';
import { promisify } from 'node:util';
import { completionOf, type Completion, type ProcessExit, type RunningProcess } from './process-runner.ts';

const run = promisify(execFile);

/** podman's settings for every call (containers.conf beside this file says why). */
const podmanEnv = { ...process.env, CONTAINERS_CONF: join(import.meta.dirname, 'containers.conf') };

/** The label that ties networks, pods and containers to the environment that made them. */
export const ENV_LABEL = 'knredis.env';

/** podman with its arguments; its stdout, trimmed. A failure names the command and podman's own words. */
export async function podman(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('podman', args, { env: podmanEnv, maxBuffer: 16 << 20 });
    return stdout.trim();
  } catch (error) {
    const stderr = ((error as { stderr?: string }).stderr ?? '')
      .split('\n')
      .filter((l) => l && !l.includes('failed to connect to syslog'))
      .join('; ');
    throw new Error(`podman ${args.slice(0, 2).join(' ')} failed: ${stderr || (error as Error).message}`, {
      cause: error,
    });
  }
}

export interface NetworkSpec {
  readonly name: string;
  /** An IPv4 /16 the pods' addresses are taken from, e.g. 10.120.0.0/16. */
  readonly subnet: string;
  readonly env: string;
}

/**
 * Creates the environment's bridge network unless it exists; its gateway is the host's address on
 * it. The subnet is the environment's own (10.X for its 127.X, which no live environment shares),
 * so a knredis network already on it was left by an environment that is gone: it goes, with its
 * pods.
 */
export async function ensureNetwork(spec: NetworkSpec): Promise<{ gateway: string }> {
  const existing = await podman('network', 'ls', '--format', '{{.Name}}', '--filter', `name=^${spec.name}$`);
  if (!existing.split('\n').includes(spec.name)) {
    for (const stale of await environmentsOnSubnet(spec.subnet)) await removeEnvironment(stale);
    // Without podman's own DNS, which would hold the gateway's port 53 (cluster-dns.ts serves it).
    await podman(
      'network',
      'create',
      '--disable-dns',
      '--subnet',
      spec.subnet,
      '--label',
      `${ENV_LABEL}=${spec.env}`,
      spec.name,
    );
  }
  return { gateway: await gatewayOf(spec.name) };
}

/** The environments whose knredis networks use this subnet. */
async function environmentsOnSubnet(subnet: string): Promise<string[]> {
  const ids = (await podman('network', 'ls', '--quiet', '--filter', `label=${ENV_LABEL}`)).split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const networks = JSON.parse(await podman('network', 'inspect', ...ids)) as {
    subnets?: { subnet?: string }[];
    labels?: Record<string, string>;
  }[];
  return networks
    .filter((n) => n.subnets?.some((s) => s.subnet === subnet))
    .map((n) => n.labels?.[ENV_LABEL] ?? '')
    .filter(Boolean);
}

async function gatewayOf(network: string): Promise<string> {
  const subnets = JSON.parse(await podman('network', 'inspect', '--format', '{{json .Subnets}}', network)) as {
    gateway?: string;
  }[];
  const gateway = subnets[0]?.gateway;
  if (!gateway) throw new Error(`podman network ${network} has no gateway`);
  return gateway;
}

export interface SandboxSpec {
  /** The podman pod's name, unique on the machine. */
  readonly name: string;
  readonly network: string;
  /** The pod's address, inside the network's subnet. */
  readonly ip: string;
  readonly hostname: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The pod's resolv.conf, as podman's --dns flags (cluster-dns.ts). */
  readonly dnsFlags?: readonly string[];
}

/** A pod's sandbox: a podman pod whose infra container holds the network namespace. */
export async function createSandbox(spec: SandboxSpec): Promise<void> {
  await podman(
    'pod',
    'create',
    '--replace',
    '--name',
    spec.name,
    '--network',
    spec.network,
    '--ip',
    spec.ip,
    '--hostname',
    spec.hostname,
    ...Object.entries(spec.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    ...(spec.dnsFlags ?? []),
  );
  await podman('pod', 'start', spec.name);
}

/**
 * Removes a pod's sandbox and its containers (SIGKILL: the kubelet stopped them first). podman
 * 4.3 can refuse once while a container it kills is still stopping ("container state improper:
 * stopped"); the next try finds it stopped.
 */
export async function removeSandbox(name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await podman('pod', 'rm', '--force', '--ignore', '--time', '0', name);
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

/** Removes every pod and network of an environment (a kubelet starting again, or `down`). */
export async function removeEnvironment(env: string): Promise<void> {
  const pods = await podman('pod', 'ps', '--quiet', '--filter', `label=${ENV_LABEL}=${env}`);
  for (const id of pods.split('\n').filter(Boolean)) await removeSandbox(id);
  const networks = await podman('network', 'ls', '--quiet', '--filter', `label=${ENV_LABEL}=${env}`);
  for (const id of networks.split('\n').filter(Boolean)) await podman('network', 'rm', '--force', id);
}

export interface Mount {
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
}

export interface ContainerSpec {
  /** The container's name, unique on the machine; a container of that name is replaced. */
  readonly name: string;
  readonly sandbox: string;
  readonly image: string;
  /** The image's entry point replaced (a pod's `command`). */
  readonly command?: readonly string[];
  /** The arguments (a pod's `args`, or the command's tail). */
  readonly args?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly mounts: readonly Mount[];
  readonly workingDir?: string;
  /** `uid` or `uid:gid`. */
  readonly user?: string;
  readonly supplementalGroups?: readonly number[];
  readonly memoryBytes?: number;
  readonly cpus?: number;
  readonly readOnlyRootFilesystem?: boolean;
  readonly dropCapabilities?: readonly string[];
  readonly addCapabilities?: readonly string[];
  readonly noNewPrivileges?: boolean;
  readonly labels: Readonly<Record<string, string>>;
  /** Where the container's output goes (CRI log format, as a kubelet writes it). */
  readonly logFile: string;
}

export interface ContainerProcess extends RunningProcess {
  readonly containerID: string;
}

/** The arguments of `podman run` for a container (pure; tested). */
export function runArgs(spec: ContainerSpec): string[] {
  const [entrypoint, ...commandArgs] = spec.command ?? [];
  return [
    'run',
    '--detach',
    '--replace',
    // Images are built here (infra/image/): no registry is reachable, and none is tried.
    '--pull',
    'never',
    '--name',
    spec.name,
    '--pod',
    spec.sandbox,
    '--log-driver',
    'k8s-file',
    '--log-opt',
    `path=${spec.logFile}`,
    ...Object.entries(spec.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    ...Object.entries(spec.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    ...spec.mounts.flatMap((m) => ['--volume', `${m.source}:${m.target}:${m.readOnly ? 'ro' : 'rw'}`]),
    ...(spec.workingDir ? ['--workdir', spec.workingDir] : []),
    ...(spec.user ? ['--user', spec.user] : []),
    ...(spec.supplementalGroups ?? []).flatMap((g) => ['--group-add', String(g)]),
    ...(spec.memoryBytes ? ['--memory', String(spec.memoryBytes), '--memory-swap', String(spec.memoryBytes)] : []),
    ...(spec.cpus ? ['--cpus', String(spec.cpus)] : []),
    ...(spec.readOnlyRootFilesystem ? ['--read-only'] : []),
    ...(spec.dropCapabilities ?? []).flatMap((c) => ['--cap-drop', c]),
    ...(spec.addCapabilities ?? []).flatMap((c) => ['--cap-add', c]),
    ...(spec.noNewPrivileges ? ['--security-opt', 'no-new-privileges'] : []),
    // The entry point is given as JSON so that a command of one word is not split by podman.
    ...(entrypoint !== undefined ? ['--entrypoint', JSON.stringify([entrypoint])] : []),
    spec.image,
    ...commandArgs,
    ...(spec.args ?? []),
  ];
}

/**
 * Starts a container in its pod's sandbox; resolves once it runs. A failure to start (no such
 * image, a mount refused) rejects with podman's own message.
 */
export async function startContainer(spec: ContainerSpec): Promise<ContainerProcess> {
  mkdirSync(dirname(spec.logFile), { recursive: true });
  // With --replace, podman names the container it replaced first: the new id is the last line.
  const id = (await podman(...runArgs(spec))).split('\n').pop() ?? '';
  const [pidText, image] = (await podman('inspect', '--format', '{{.State.Pid}} {{.Image}}', id)).split(' ');
  const pid = Number(pidText) || -1;
  const startedAt = Date.now();
  let alive = true;
  const exited = new Promise<ProcessExit>((resolve) => {
    const waiter = spawn('podman', ['wait', id], { env: podmanEnv, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    waiter.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const done = async () => {
      const code = Number.parseInt(out.trim(), 10);
      const oom = await podman('inspect', '--format', '{{.State.OOMKilled}}', id).catch(() => 'false');
      alive = false;
      resolve({
        code: Number.isNaN(code) ? 255 : code,
        signal: null,
        ...(oom === 'true' ? { reason: 'OOMKilled' } : {}),
        at: Date.now(),
      });
    };
    waiter.once('close', () => void done());
    waiter.once('error', () => void done());
  });
  return {
    pid,
    containerID: `podman://${id}`,
    ...(image ? { imageID: `sha256:${image}` } : {}),
    startedAt,
    exited,
    isAlive: () => alive,
    signal(signal) {
      if (!alive) return false;
      // A frozen container is paused (cgroup freezer), not stopped by SIGSTOP: SIGCONT alone
      // would not wake it.
      const args =
        signal === 'SIGSTOP'
          ? ['pause', id]
          : signal === 'SIGCONT'
            ? ['unpause', id]
            : ['kill', '--signal', String(constants.signals[signal]), id];
      podman(...args).catch(() => {
        /* gone already, or not paused: nothing to do */
      });
      return true;
    },
  };
}

/**
 * Runs a command in a running container by name or id, within timeoutMs: `podman exec`, for
 * the tests and the tools. On a timeout `podman exec` is killed; the command may go on in the
 * container until it ends.
 */
export function execInContainer(container: string, argv: readonly string[], timeoutMs: number): Promise<Completion> {
  const child = spawn('podman', ['exec', container, ...argv], { env: podmanEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  return completionOf(child, timeoutMs, () => child.kill('SIGKILL'));
}

/** runc's state directory, where root podman keeps its containers' (runc's default for root). */
const RUNC_ROOT = '/run/runc';

/**
 * Runs a command in a running container within timeoutMs, as a kubelet's runtime runs exec
 * probes and preStop hooks: `runc exec` by the container's id (`podman://<id>`), with the
 * container's own user, environment and working directory. Not `podman exec`, which is podman,
 * conmon, runc and then `podman container cleanup` for every command: a few pods probed every
 * 5 s that way keep a 2-core machine busy (README.md in this folder has the figures). On a
 * timeout runc gets SIGTERM, which it passes on to the command, and SIGKILL a second later.
 */
export function execByRuntime(containerID: string, argv: readonly string[], timeoutMs: number): Promise<Completion> {
  const id = containerID.replace(/^podman:\/\//, '');
  const child = spawn('runc', ['--root', RUNC_ROOT, 'exec', id, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  return completionOf(child, timeoutMs, () => {
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 1000).unref();
  });
}
