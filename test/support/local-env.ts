// The local Kubernetes environment for integration and e2e tests: started once per mocha
// process on first use (shared by every test file), stopped by a root `after` hook, and
// killed on process exit, so nothing is left running even when tests fail or are interrupted.
//
//   const env = await localEnvironment();          // in a before() hook
//   const core = env.kubeConfig().makeApiClient(CoreV1Api);
//   await env.kubectl(['get', 'pods', '-A']);
//   await waitFor(async () => (await isReady()) || undefined, { what: 'pod web-0 Ready' });
//
// KNREDIS_TEST_ENV=NAME uses an environment already started with `npm run local:up -- --name
// NAME` (and leaves it running); KNREDIS_KEEP_ENV=1 keeps the test environment's directory.
import { rmSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { startEnvironment, stopEnvironment } from '../../infra/local/environment.ts';
import { kubectlOf, type Kubectl } from '../../infra/local/kubectl.ts';
import { envDir } from '../../infra/local/paths.ts';
import { isRunning } from '../../infra/local/processes.ts';
import { allStates, readState, type EnvState } from '../../infra/local/state.ts';
import { killEnvironmentSync } from '../../infra/local/stop.ts';
import { environmentStatus } from '../../infra/local/status.ts';
import { KubeletControl } from '../../infra/local/kubelet/control-client.ts';
import { requireCommand } from './prerequisites.ts';
import { waitFor, type WaitOptions } from './wait-for.ts';

export { waitFor, type WaitOptions } from './wait-for.ts';
export {
  KubeletControl,
  KubeletControlError,
  type KubeletNode,
  type KubeletPod,
} from '../../infra/local/kubelet/control-client.ts';

export interface LocalEnvironment {
  readonly name: string;
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:PORT */
  readonly server: string;
  /** The built kubectl, matching the server's version. */
  readonly kubectlPath: string;
  /** Names of the kubelet's nodes (empty when there is no kubelet). */
  readonly nodes: string[];
  /** Pods get addresses in `${podIpPrefix}.0.0/16`. */
  readonly podIpPrefix: string;
  /** The kubelet's control API (crash/freeze/thaw a pod, fail/restore a node). */
  readonly kubeletControlUrl: string;
  /** Client of that API: crashPod, freezePod, thawPod, failNode, restoreNode, pods, nodes. */
  readonly kubelet: KubeletControl;
  /** The whole state.json (ports, pids, log files). */
  readonly state: EnvState;
  /** A fresh KubeConfig for the admin user (system:masters). */
  kubeConfig(): KubeConfig;
  /** Runs kubectl against the environment; resolves stdout, rejects with stderr. */
  kubectl: Kubectl;
  waitFor<T>(fn: () => T | Promise<T>, options: WaitOptions): Promise<NonNullable<T>>;
}

let shared: Promise<LocalEnvironment> | undefined;
let ownName: string | undefined;

/** Nodes and zones apply to the environment this process starts (the first call's win). */
export interface EnvironmentShape {
  readonly nodes?: number;
  readonly zones?: readonly string[];
}

export function localEnvironment(shape: EnvironmentShape = {}): Promise<LocalEnvironment> {
  shared ??= open(shape);
  return shared;
}

async function open(shape: EnvironmentShape): Promise<LocalEnvironment> {
  const reuse = process.env.KNREDIS_TEST_ENV;
  if (reuse) {
    const status = environmentStatus(reuse);
    if (!status.running)
      throw new Error(`KNREDIS_TEST_ENV=${reuse}, but it is not running: npm run local:up -- --name ${reuse}`);
    return toLocal(readState(reuse)!);
  }
  requireCommand('openssl');
  await stopOrphans();
  ownName = `test-${process.pid}`;
  killOnExitOrSignal();
  // Services on loopback, so the Knative tests can install Knative's webhooks when they run.
  const state = await startEnvironment({ name: ownName, owner: process.pid, loopbackServices: true, ...shape });
  return toLocal(state);
}

/** The test view of an environment a test started itself (another runtime, another shape). */
export function toLocal(state: EnvState): LocalEnvironment {
  return {
    name: state.name,
    kubeconfigPath: state.kubeconfig,
    server: state.server,
    kubectlPath: state.kubectl,
    nodes: state.nodes,
    podIpPrefix: state.podIpPrefix,
    kubeletControlUrl: state.kubeletControlUrl,
    state,
    kubelet: new KubeletControl(state.kubeletControlUrl),
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromFile(state.kubeconfig);
      return kc;
    },
    kubectl: kubectlOf(state, 60_000),
    waitFor,
  };
}

/** Test environments whose mocha process died without stopping them (kill -9, crash). */
async function stopOrphans(): Promise<void> {
  for (const s of allStates()) {
    if (s.owner !== undefined && s.owner !== process.pid && !isRunning(s.owner)) {
      await stopEnvironment(s.name, { purge: true }).catch(() => {});
    }
  }
}

function anyFailed(suite: Mocha.Suite): boolean {
  return suite.tests.some((t) => t.state === 'failed') || suite.suites.some(anyFailed);
}

// Root hook: registered when the first test file imports this module (mocha is loading files).
if (typeof after === 'function') {
  after(async function () {
    if (!ownName || !shared) return;
    this.timeout(60_000);
    const keep = process.env.KNREDIS_KEEP_ENV === '1' || (this.test?.parent ? anyFailed(this.test.parent) : false);
    await stopEnvironment(ownName, { purge: !keep });
    if (keep) console.error(`local environment ${ownName} kept for debugging: ${envDir(ownName)} (logs/)`);
    ownName = undefined;
  });
}

function killOnExit(): void {
  if (!ownName) return;
  const state = readState(ownName);
  if (state) killEnvironmentSync(state);
  if (process.env.KNREDIS_KEEP_ENV !== '1') rmSync(envDir(ownName), { recursive: true, force: true });
  ownName = undefined;
}
/** Installed once this process owns an environment: exit and fatal signals kill it. */
function killOnExitOrSignal(): void {
  process.once('exit', killOnExit);
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.once(signal, () => {
      killOnExit();
      process.exit(code);
    });
  }
}
