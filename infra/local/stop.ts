// Stopping an environment: the kubelet first (so it can stop its pods), then the control
// plane, each by process group, then anything left that belongs to the environment. Verifies
// that nothing is left running and removes the cluster's data (etcd, kubelet state).
import { existsSync, readlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { heal, healSync, partitionTag } from './kubelet/partition.ts';
import { clusterIpPrefix, removeClusterIps } from './kubelet/cluster-ips.ts';
import { removeEnvironment } from './kubelet/podman-runtime.ts';
import { envDir } from './paths.ts';
import { isRunning, processesMentioning, signalAll, stopAll, withDescendants, type Target } from './processes.ts';
import { allStates, isLive, readState, statePath, type Component, type EnvState } from './state.ts';

export interface StopOptions {
  /** Remove the whole directory (certificates, logs) too. */
  purge?: boolean;
  /** Keep the logs even with purge (a failed start). */
  keepLogs?: boolean;
}

export interface StopResult {
  /** False when there was no state.json for the name. */
  found: boolean;
  /** Pids that were still running and were stopped. */
  stopped: number[];
}

const order: Component[][] = [
  ['eventing-webhook', 'serving-webhook'],
  ['kubelet'],
  ['kube-scheduler', 'kube-controller-manager'],
  ['kube-apiserver'],
  ['etcd'],
];

function targets(state: EnvState, components: Component[]): Target[] {
  return components.flatMap((c) => {
    const p = state.processes[c];
    return p ? [{ pid: p.pid, match: p.match }] : [];
  });
}

/** Everything of the environment that runs: its processes, their descendants, its pods.
 * `dir/` with the slash: env `dev1` must not take `dev10`'s processes for its own. */
export function leftovers(state: EnvState): number[] {
  const roots = Object.values(state.processes)
    .filter((p) => p && isRunning(p.pid, p.match))
    .map((p) => p!.pid);
  // Pods are found by their address, unless a live environment has the prefix now (after ours died).
  const prefixTaken = allStates().some(
    (s) => s.name !== state.name && s.podIpPrefix === state.podIpPrefix && isLive(s),
  );
  const pods = state.podIpPrefix && !prefixTaken ? processesMentioning(`${state.podIpPrefix}.`) : [];
  return [...new Set([...withDescendants(roots), ...processesMentioning(`${state.dir}/`), ...pods])].sort(
    (a, b) => a - b,
  );
}

export async function stopEnvironment(name: string, options: StopOptions = {}): Promise<StopResult> {
  const state = readState(name);
  const dir = envDir(name);
  if (!state) {
    if (options.purge && existsSync(dir)) await removeDir(dir);
    return { found: false, stopped: [] };
  }
  const before = leftovers(state);
  // stopAll ends with SIGKILL; what survives even that is reported below.
  for (const group of order) await stopAll(targets(state, group), [], group.includes('kubelet') ? 15_000 : 5_000);
  // Whatever is left (pods the kubelet did not stop, children of dead parents) gets SIGKILL.
  const rest = [...new Set([...before.filter((pid) => isRunning(pid)), ...leftovers(state)])];
  if (rest.length > 0) {
    signalAll([], rest, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
  }
  // Partition rules the kubelet had no chance to remove (killed mid-partition).
  await heal(partitionTag(name));
  // Pods a container-runtime kubelet had no chance to remove, and the environment's network.
  if (state.containerRuntime) {
    await removeEnvironment(name);
    if (state.serviceCidr) await removeClusterIps(clusterIpPrefix(state.serviceCidr));
  }
  const still = leftovers(state).concat(rest.filter((pid) => isRunning(pid)));
  if (still.length > 0)
    throw new Error(`processes of '${name}' still run after SIGKILL: ${[...new Set(still)].join(', ')}`);
  await rm(join(dir, 'etcd'), { recursive: true, force: true });
  await rm(join(dir, 'kubelet'), { recursive: true, force: true });
  await rm(statePath(name), { force: true });
  for (const file of ['admin', 'controller-manager', 'scheduler', 'kubelet'])
    await rm(join(dir, `${file}.kubeconfig`), { force: true });
  if (options.purge && !options.keepLogs) await removeDir(dir);
  return { found: true, stopped: before };
}

/** Removes the directory, and the directory a link points to (a custom `dir`). */
async function removeDir(dir: string): Promise<void> {
  let target: string | undefined;
  try {
    target = readlinkSync(dir);
  } catch {
    target = undefined;
  }
  if (target) await rm(target, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
}

/** Synchronous SIGKILL of everything of the environment, for process 'exit' handlers. */
export function killEnvironmentSync(state: EnvState): void {
  healSync(partitionTag(state.name));
  signalAll(
    Object.values(state.processes)
      .filter((p): p is NonNullable<typeof p> => !!p)
      .map((p) => ({ pid: p.pid, match: p.match })),
    leftovers(state),
    'SIGKILL',
  );
}
