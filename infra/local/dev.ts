// `npm run dev`: the local Kubernetes (reused when up), the operator as separate processes
// (infra/local/operator-stack.ts) or, with --in-cluster, installed into it as users install it
// (infra/local/install-operator.ts), a sample RedisCluster, its progress, then where to look.
// Ctrl-C / SIGTERM stop what this process started; a second Ctrl-C kills it at once.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { childNames } from '../../shared/core/resources/names.ts';
import { devUsage, parseDevArgs, UsageError, type DevOptions } from './dev-args.ts';
import { watchProgress, type WatchProgress } from './dev-progress.ts';
import { removeDevState, runningDev, writeDevState } from './dev-state.ts';
import { devSummary, type DevSummary } from './dev-summary.ts';
import { startEnvironment, stopEnvironment, type Environment } from './environment.ts';
import {
  buildImages,
  DASHBOARD_SECRET,
  installOperator,
  OPERATOR_NAMESPACE,
  operatorUrls,
} from './install-operator.ts';
import { kubectlOf } from './kubectl.ts';
import { startOperatorStack, type OperatorStack } from './operator-stack.ts';
import { envDir, repoRoot } from './paths.ts';
import { readState } from './state.ts';
import { environmentStatus } from './status.ts';
import { killEnvironmentSync } from './stop.ts';

const started = Date.now();
const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s] ${line}`);

let options: DevOptions;
try {
  options = parseDevArgs(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`${error.message}\n(npm run dev -- --help)`);
  process.exit(2);
}
if (options.help) {
  console.log(devUsage);
  process.exit(0);
}
const other = runningDev(options.name);
if (other !== undefined) {
  console.error(
    `npm run dev is already running against '${options.name}' (pid ${other}); stop it, or pick another environment: npm run dev -- --name other`,
  );
  process.exit(1);
}

// What this process started, for the stop path (and a synchronous kill if it dies anyway).
let ownsEnvironment = false;
let stack: OperatorStack | undefined;
let progress: WatchProgress | undefined;
let stopping = false;
process.on('exit', () => {
  const state = ownsEnvironment && !options.keep ? readState(options.name) : undefined;
  if (state) killEnvironmentSync(state);
});

async function shutdown(reason: string, code: number): Promise<never> {
  stopping = true;
  say(`${reason}: stopping (press Ctrl-C again to kill at once)`);
  progress?.stop();
  let failed = false;
  await stack?.stop().catch((error: Error) => {
    failed = true;
    console.error(error.message);
  });
  if (ownsEnvironment && !options.keep) {
    say(`stopping the local environment '${options.name}'`);
    await stopEnvironment(options.name).catch((error: Error) => {
      failed = true;
      console.error(error.message);
    });
  }
  ownsEnvironment = false;
  removeDevState(options.name);
  say(failed ? 'stopped, with errors (above)' : 'stopped');
  process.exit(failed ? 1 : code);
}
// Ctrl-C can reach this process twice through npm (the terminal's, then npm's forward, late on
// a busy machine): a repeat within 2 s is that echo, not a second Ctrl-C. The script runs as
// `node --import tsx`, not the tsx CLI: that one SIGKILLs its child when the child's event loop
// has not acknowledged a signal within 60 ms, which a busy machine exceeds, and nothing of the
// environment would be stopped.
let firstSignalAt = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (!stopping) {
      firstSignalAt = Date.now();
      void shutdown(signal, 0);
    } else if (Date.now() - firstSignalAt > 2_000) {
      process.exit(130); // the exit hooks kill what is left
    }
  });
}

async function main(): Promise<void> {
  // 1: the local Kubernetes
  say(`local environment '${options.name}'${options.inCluster ? ' (pods as containers, cert-manager)' : ''}`);
  // Owned from the start when it is not up, so Ctrl-C during its start stops it.
  ownsEnvironment = !environmentStatus(options.name).running;
  if (!ownsEnvironment && !!readState(options.name)?.containerRuntime !== options.inCluster)
    throw new Error(
      options.inCluster
        ? `the environment '${options.name}' is up with pods as processes; --in-cluster needs one whose pods are containers: npm run local:down -- --name ${options.name}, or --name another`
        : `the environment '${options.name}' is up with pods as containers (--in-cluster); add --in-cluster, or --name another`,
    );
  if (options.inCluster) {
    // What npm's predev set-up (for plain dev) leaves out: podman, runc and mmdebstrap.
    const setup = spawnSync(process.execPath, [join(repoRoot, 'infra', 'setup', 'setup.mjs'), 'in-cluster'], {
      stdio: 'inherit',
    });
    if (setup.status !== 0) throw new Error('the set-up for --in-cluster failed (above)');
    // Before the environment: the images are what its pods pull (the first time, minutes).
    say('images (infra/image)');
    await buildImages((line) => say(`  ${line}`));
  }
  const env = await startEnvironment({
    name: options.name,
    nodes: options.nodes,
    progress: (line) => say(`  ${line}`),
    ...(options.inCluster ? { runtime: 'container' as const, certManager: true } : {}),
  });
  ownsEnvironment = !env.alreadyUp;
  say(env.alreadyUp ? `  already up: reusing it (it keeps running on exit)` : `  up (${env.nodes.length} nodes)`);
  const record = {
    pid: process.pid,
    name: options.name,
    startedEnvironment: ownsEnvironment,
    keep: options.keep,
    kubeconfig: env.kubeconfig,
  };
  await writeDevState({ ...record, stack: {} });
  if (options.inCluster) return inCluster(env);
  // 2: the operator
  say('operator');
  const token = process.env.DASHBOARD_TOKEN;
  stack = await startOperatorStack({
    kubeconfig: env.kubeconfig,
    kubectl: env.kubectl,
    dir: join(envDir(options.name), 'operator'),
    log: (line) => say(`  ${line}`),
    onSignal: 'none',
    webhookConfigurationName: `knredis-dev-${options.name}`,
    extraEnv: {
      ...(token ? { DASHBOARD_TOKEN: token } : {}),
      ...(process.env.LOG_LEVEL ? { LOG_LEVEL: process.env.LOG_LEVEL } : {}),
    },
  });
  await writeDevState({ ...record, stack: stack.pids(), dashboard: stack.urls.dashboard });
  // 3: the sample, and its progress until Ready
  const sample = await sampleUntilReady(env);
  if (stopping) return;
  // 4: where to look
  printSummary(env, sample, {
    dashboard: stack.urls.dashboard,
    dashboardToken: !!token,
    metrics: [stack.urls.metrics, ...stack.urls.workerMetrics],
    logsDir: join(stack.dir, 'logs'),
  });
  watchProcesses(stack);
}

/** The operator installed into the environment, then the sample, its progress and where to look. */
async function inCluster(env: Environment): Promise<void> {
  const kubectl = kubectlOf(env, 600_000);
  say(`operator: infra/overlays/kubernetes into the namespace ${OPERATOR_NAMESPACE}`);
  const token = process.env.DASHBOARD_TOKEN;
  await installOperator({ kubectl, progress: (line) => say(`  ${line}`), ...(token ? { dashboardToken: token } : {}) });
  const urls = await operatorUrls(kubectl);
  const sample = await sampleUntilReady(env);
  if (stopping) return;
  printSummary(env, sample, {
    dashboard: urls.dashboard,
    dashboardToken: !!token,
    metrics: urls.metrics,
    inCluster: { namespace: OPERATOR_NAMESPACE, tokenSecret: DASHBOARD_SECRET },
  });
  // Keep the event loop alive until a signal arrives.
  setInterval(() => {}, 1 << 30);
}

/** Prints where to look: what both ways of running the operator share, and `where` it answers. */
function printSummary(
  env: Environment,
  sample: string | undefined,
  where: Pick<DevSummary, 'dashboard' | 'dashboardToken' | 'metrics' | 'logsDir' | 'inCluster'>,
): void {
  console.log(
    devSummary({
      envName: options.name,
      kubeconfig: env.kubeconfig,
      kubectl: env.kubectl,
      envLogsDir: join(env.dir, 'logs'),
      ...where,
      ...(sample
        ? { sample: { name: sample, namespace: options.namespace, secret: childNames(sample).generatedSecret } }
        : {}),
      keepsEnvironment: !ownsEnvironment || options.keep,
    }),
  );
}

/** Applies the sample (unless --no-sample) and shows its progress until Ready or the timeout. */
async function sampleUntilReady(env: Environment): Promise<string | undefined> {
  const sample = options.sample
    ? applySample(env.kubectl, env.kubeconfig, options.sample, options.namespace)
    : undefined;
  if (!sample) return undefined;
  say(`RedisCluster ${options.namespace}/${sample}:`);
  const kc = new KubeConfig();
  kc.loadFromFile(env.kubeconfig);
  progress = watchProgress(kc, options.namespace, sample, options.readyTimeoutS * 1000, (line) => say(`  ${line}`));
  const ready = await progress.done;
  if (!stopping)
    say(
      ready
        ? `RedisCluster ${sample} is Ready`
        : `RedisCluster ${sample} is NOT Ready after ${options.readyTimeoutS}s: see the logs below and kubectl describe`,
    );
  return sample;
}

function applySample(kubectl: string, kubeconfig: string, file: string, namespace: string): string {
  const name = (parse(readFileSync(file, 'utf8')) as { metadata?: { name?: string } }).metadata?.name;
  if (!name) throw new Error(`${file} has no metadata.name`);
  say(`applying ${file}`);
  const run = (args: string[], input?: string) =>
    execFileSync(kubectl, ['--kubeconfig', kubeconfig, ...args], {
      input,
      stdio: ['pipe', 'ignore', 'inherit'],
      timeout: 60_000,
    });
  if (namespace !== 'default')
    run(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  run(['apply', '-n', namespace, '-f', file]);
  return name;
}

/** Says once when one of the operator's processes exits while dev runs. */
function watchProcesses(running: OperatorStack): void {
  const names = Object.keys(running.pids());
  const gone = new Set<string>();
  setInterval(() => {
    const alive = running.pids();
    for (const name of names) {
      if (!(name in alive) && !gone.has(name) && !stopping) {
        gone.add(name);
        say(`WARNING: ${name} exited; see ${running.logs[name]}`);
      }
    }
  }, 2_000).unref();
  // Keep the event loop alive until a signal arrives.
  setInterval(() => {}, 1 << 30);
}

main().catch(async (error: unknown) => {
  if (stopping) return;
  console.error(`npm run dev failed: ${error instanceof Error ? error.message : String(error)}`);
  await shutdown('failed', 1);
});
