// Restarting one component of a running environment, for tests of what must survive it (an
// API server restart): the process is stopped like `down` stops it (SIGTERM to its group,
// SIGKILL after the grace period) and started again with the same command line, working
// directory and log file; state.json gets the new pid; it returns once the component answers
// the same health check `up` waits for.
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isRunning, spawnDetached, stopAll } from './processes.ts';
import { waitReady, type Probe } from './readiness.ts';
import { webhookProbe } from './knative/webhooks.ts';
import { readState, writeState, type Component, type EnvState } from './state.ts';

export interface RestartOptions {
  /** Runs while the component is stopped (it is started again even when this throws). */
  whileDown?: () => Promise<void>;
  /** SIGTERM grace before SIGKILL (default 5s, as `down`). */
  graceMs?: number;
}

/** The health check of a component, as `up` uses it. */
export function healthProbe(state: EnvState, component: Component): Omit<Probe, 'pid' | 'match' | 'log'> {
  const certs = join(state.dir, 'certs');
  switch (component) {
    case 'etcd':
      return { what: component, url: `http://127.0.0.1:${state.ports.etcd}/health` };
    case 'kube-apiserver':
      return {
        what: component,
        url: `${state.server}/readyz`,
        tls: { ca: join(certs, 'ca.crt'), cert: join(certs, 'admin.crt'), key: join(certs, 'admin.key') },
      };
    case 'kube-controller-manager':
      return { what: component, url: `https://127.0.0.1:${state.ports.controllerManager}/healthz`, tls: {} };
    case 'kube-scheduler':
      return { what: component, url: `https://127.0.0.1:${state.ports.scheduler}/healthz`, tls: {} };
    case 'kubelet':
      return { what: component, url: `${state.kubeletControlUrl}/healthz` };
    case 'eventing-webhook':
    case 'serving-webhook':
      return webhookProbe(state, component);
  }
}

/** The argv (NUL-separated in /proc, so arguments with spaces survive) and cwd of a process. */
function commandOf(pid: number): { argv: string[]; cwd: string } {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((arg, i, all) => arg !== '' || i < all.length - 1);
  return { argv, cwd: readlinkSync(`/proc/${pid}/cwd`) };
}

export async function restartComponent(
  env: string | EnvState,
  component: Component,
  options: RestartOptions = {},
): Promise<EnvState> {
  const name = typeof env === 'string' ? env : env.name;
  const state = readState(name);
  const record = state?.processes[component];
  if (!state || !record) throw new Error(`environment '${name}' has no ${component}`);
  if (!isRunning(record.pid, record.match))
    throw new Error(`${component} of '${name}' (pid ${record.pid}) is not running; see ${record.log}`);
  const { argv, cwd } = commandOf(record.pid);
  const [command, ...args] = argv;
  if (!command) throw new Error(`cannot read the command line of ${component} (pid ${record.pid})`);
  // 1: stop it as `down` would.
  const left = await stopAll([{ pid: record.pid, match: record.match }], [], options.graceMs ?? 5_000);
  if (left.length > 0) throw new Error(`${component} of '${name}' survived SIGKILL: ${left.join(', ')}`);
  // 2: whatever the test does while it is down; 3: the same command again.
  try {
    await options.whileDown?.();
  } finally {
    const pid = spawnDetached(command, args, record.log, process.env, cwd);
    state.processes[component] = { ...record, pid };
    await writeState(state);
  }
  // 4: ready as `up` means it.
  await waitReady({
    ...healthProbe(state, component),
    pid: state.processes[component]!.pid,
    match: record.match,
    log: record.log,
  });
  return state;
}
