// What `local:status` reports: the state.json of the environment plus which of its
// processes run. The JSON form is a contract (DESIGN.md): kubeconfig, server, nodes, kubectl.
import { isRunning } from './processes.ts';
import { readState, type EnvState } from './state.ts';

export interface Status extends Partial<EnvState> {
  name: string;
  /** Every recorded process runs and `up` finished. */
  running: boolean;
  processStates?: Record<string, 'running' | 'exited'>;
}

export function environmentStatus(name: string): Status {
  const state = readState(name);
  if (!state) return { name, running: false };
  const processStates = Object.fromEntries(
    Object.entries(state.processes).map(
      ([c, p]) => [c, p && isRunning(p.pid, p.match) ? 'running' : 'exited'] as const,
    ),
  );
  const running = state.phase === 'up' && Object.values(processStates).every((s) => s === 'running');
  return { ...state, running, processStates };
}

export function formatStatus(s: Status): string {
  if (!s.processStates) return `'${s.name}' is not running (npm run local:up -- --name ${s.name})`;
  const lines = [
    `'${s.name}' ${s.running ? 'is running' : `is NOT healthy (phase ${s.phase})`}  — Kubernetes ${s.version}`,
    `  server      ${s.server}`,
    `  kubeconfig  ${s.kubeconfig}`,
    `  kubectl     ${s.kubectl}`,
    `  nodes       ${s.nodes?.join(', ') || '(none: no kubelet)'}`,
    `  pod IPs     ${s.podIpPrefix}.0.0/16`,
    `  kubelet     ${s.kubeletControlUrl}`,
    `  logs        ${s.dir}/logs/`,
    ...Object.entries(s.processStates).map(
      ([c, st]) => `  ${c.padEnd(24)} pid ${s.processes?.[c as keyof EnvState['processes']]?.pid}  ${st}`,
    ),
    `  try         KUBECONFIG=${s.kubeconfig} ${s.kubectl} get nodes`,
  ];
  return lines.join('\n');
}
