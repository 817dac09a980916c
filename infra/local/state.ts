// state.json of an environment: what was started (pids), where (ports, URLs, files), and
// how to reach it. Written by `up`, read by `status`, `down`, tests and benchmarks.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { envDir, envsDir } from './paths.ts';
import { isRunning } from './processes.ts';

export type Component =
  | 'etcd'
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kubelet'
  | 'eventing-webhook'
  | 'serving-webhook';

export interface Ports {
  etcd: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  scheduler: number;
  kubeletControl: number;
}

export interface ProcessRecord {
  pid: number;
  /** A word of /proc/<pid>/cmdline, so a reused pid is never taken for ours. */
  match: string;
  log: string;
}

export interface EnvState {
  name: string;
  dir: string;
  /** 'starting' while `up` runs (ports and prefix are reserved), then 'up'. */
  phase: 'starting' | 'up';
  /** The process that ran `up`; a 'starting' state whose starter died is stale. */
  starter: number;
  /** When set (test environments), the environment is stopped once this pid is gone. */
  owner?: number;
  startedAt: string;
  server: string;
  kubeconfig: string;
  kubectl: string;
  binDir: string;
  version: string;
  ports: Ports;
  /** Pods get addresses from `${podIpPrefix}.0.0/16`. */
  podIpPrefix: string;
  kubeletControlUrl: string;
  nodes: string[];
  processes: Partial<Record<Component, ProcessRecord>>;
  /** --service-cluster-ip-range when not the default 10.0.0.0/24 (a loopback range: Knative). */
  serviceCidr?: string;
  /** Pods run as OCI containers on the podman network knredis-<name> (kubelet/podman-runtime.ts). */
  containerRuntime?: boolean;
  /** Set once Knative's CRDs and webhooks are installed (infra/local/knative/install.ts). */
  knative?: { version: string; webhooks: Record<string, { clusterIP: string; port: number }> };
}

export function statePath(name: string): string {
  return join(envDir(name), 'state.json');
}

export function readState(name: string): EnvState | undefined {
  const path = statePath(name);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as EnvState;
  } catch {
    return undefined; // half-written by a crash: treated as absent (and stale)
  }
}

export async function writeState(state: EnvState): Promise<void> {
  const path = statePath(state.name);
  await writeFile(`${path}.tmp`, JSON.stringify(state, null, 2) + '\n');
  await rename(`${path}.tmp`, path);
}

/** Pids of the recorded processes that are still running. */
export function livePids(state: EnvState): number[] {
  return Object.values(state.processes)
    .filter((p) => p && isRunning(p.pid, p.match))
    .map((p) => p!.pid);
}

/** Live: some process of it runs, or its `up` is still in progress. */
export function isLive(state: EnvState): boolean {
  if (livePids(state).length > 0) return true;
  return state.phase === 'starting' && isRunning(state.starter);
}

export function allStates(): EnvState[] {
  if (!existsSync(envsDir())) return [];
  return readdirSync(envsDir(), { withFileTypes: true })
    .filter((d) => d.isDirectory() || d.isSymbolicLink())
    .map((d) => readState(d.name))
    .filter((s): s is EnvState => s !== undefined);
}
