// One local environment and one operator stack (two reconcile workers, so "never two runs of
// one key at once" is tested across processes) shared by every chaos scenario of a process.
// Stopped by stopChaosStack() (a root after hook, or the bench); the environment also dies
// with this process (test/support/local-env.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOperatorStack, type OperatorStack } from '../../../infra/local/operator-stack.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';

export interface ChaosStack {
  readonly env: LocalEnvironment;
  readonly stack: OperatorStack;
  readonly dir: string;
}

export const WORKERS = 2;
let shared: Promise<ChaosStack> | undefined;

export function chaosStack(): Promise<ChaosStack> {
  shared ??= (async () => {
    // Four nodes: a node can go away and every replica still has a node apart from its master.
    // Two zones of two nodes: an even spread (the uneven one is a scenario of its own).
    const env = await localEnvironment({ nodes: 4, zones: ['zone-a', 'zone-b', 'zone-a', 'zone-b'] });
    const dir = await mkdtemp(join(tmpdir(), 'knredis-chaos-'));
    const stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir,
      workers: WORKERS,
      webhookConfigurationName: `knredis-chaos-${process.pid}`,
      // A short lock brings a killed worker's run back soon; frequent resyncs stand in for the
      // events a restarted API server or a stalled queue lost.
      extraEnv: {
        RESYNC_INTERVAL_MS: '2000',
        RESYNC_JITTER_MS: '0',
        QUEUE_LOCK_DURATION_MS: '5000',
        QUEUE_STALLED_INTERVAL_MS: '1000',
      },
    });
    return { env, stack, dir };
  })();
  return shared;
}

/** Stops the stack; keeps its logs when asked (a failed run), else removes them. */
export async function stopChaosStack(keepLogs: boolean): Promise<void> {
  if (!shared) return;
  const { env, stack, dir } = await shared;
  shared = undefined;
  await env.kubelet.heal().catch(() => undefined);
  await stack.stop();
  if (keepLogs) console.error(`chaos: operator logs kept in ${dir}/logs`);
  else await rm(dir, { recursive: true, force: true });
}

/** The workers' log files (every process that ever ran as worker i appends to the same file). */
export function workerLogs(stack: OperatorStack): string[] {
  return Array.from({ length: WORKERS }, (_, i) => stack.logs[`worker-${i}`]).filter((f): f is string => !!f);
}
