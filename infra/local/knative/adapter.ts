// Knative's ApiServerSource receive adapter (eventing's cmd/apiserver_receive_adapter) as a
// plain process, configured as Knative's controller configures its Deployment: K_SOURCE_CONFIG
// from infra/knative/apiserversource.yaml, K_SINK the ingest URL. It binds :8080 (health, not
// configurable) and PROFILING_PORT, so one adapter runs per machine at a time.
//
// It sends nothing for objects that exist when its watches start, and skips for good a
// resource type missing at start: start it after the CRD is installed, and wait for
// adapterWatching() before making the changes it must see.
//
// Its events carry a token, as with Knative's OIDC sender authentication: K_AUDIENCE (the
// sink's audience in the ApiServerSource) and K_OIDC_SERVICE_ACCOUNT (the ServiceAccount
// Knative's controller creates for the source), for which the adapter asks the TokenRequest API.
import { spawnStackProcess, freeLoopbackPort, type StackProcess } from '../stack-process.ts';
import { repoRoot } from '../paths.ts';
import { ensureKnative } from './binaries.ts';
import { readApiServerSource, toAdapterConfig, type AdapterConfig, type EventMode } from './source-config.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { ensureServiceAccount } from '../sender-token.ts';

export interface AdapterOptions {
  readonly kubeconfig: string;
  /** Where CloudEvents go: knredis ingest. */
  readonly sink: string;
  /** Default: the mode of infra/knative/apiserversource.yaml. */
  readonly mode?: EventMode;
  readonly log: string;
  /** Seconds per delivery attempt (K_SINK_TIMEOUT). */
  readonly sinkTimeoutS?: number;
}

export interface RunningAdapter {
  readonly process: StackProcess;
  readonly config: AdapterConfig;
}

export async function startKnativeAdapter(options: AdapterOptions): Promise<RunningAdapter> {
  const build = await ensureKnative();
  const source = readApiServerSource();
  const config = toAdapterConfig(source, options.mode);
  const namespace = 'knredis-system';
  // Knative's name for a source's OIDC ServiceAccount (eventing pkg/auth GetOIDCServiceAccountNameForResource).
  const oidcAccount = 'knredis-oidc-sources.knative.dev-apiserversource';
  const kc = new KubeConfig();
  kc.loadFromFile(options.kubeconfig);
  await ensureServiceAccount(kc, namespace, oidcAccount);
  const proc = spawnStackProcess({
    name: 'apiserver-adapter',
    command: build.bin('apiserver_receive_adapter'),
    args: ['--kubeconfig', options.kubeconfig],
    cwd: repoRoot,
    log: options.log,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NAME: 'knredis',
      NAMESPACE: namespace,
      SYSTEM_NAMESPACE: 'knative-eventing',
      METRICS_DOMAIN: 'knative.dev/eventing',
      PROFILING_PORT: String(await freeLoopbackPort()),
      K_SINK: options.sink,
      K_SINK_TIMEOUT: String(options.sinkTimeoutS ?? 10),
      ...(source.sink?.audience ? { K_AUDIENCE: source.sink.audience, K_OIDC_SERVICE_ACCOUNT: oidcAccount } : {}),
      K_SOURCE_CONFIG: JSON.stringify(config),
      K_LOGGING_CONFIG: JSON.stringify({ zap_logger_config: JSON.stringify(zapConfig) }),
      K_OBSERVABILITY_CONFIG: '{}',
    },
  });
  return { process: proc, config };
}

const zapConfig = {
  level: 'info',
  development: false,
  outputPaths: ['stdout'],
  errorOutputPaths: ['stderr'],
  encoding: 'json',
  encoderConfig: { timeKey: 'ts', levelKey: 'level', messageKey: 'msg', timeEncoder: 'iso8601' },
};

/** Open WATCH requests per resource ("group/resource") in the API server's /metrics text. */
export function openWatches(metrics: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_longrunning_requests{') || !line.includes('verb="WATCH"')) continue;
    const group = /group="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const key = `${group}/${resource}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** True once every resource of `config` has more open watches than `before` (taken before the
 * adapter started): its reflectors have listed and watch, so every later change reaches it. */
export function adapterWatching(config: AdapterConfig, before: Map<string, number>, now: Map<string, number>): boolean {
  return config.resources.every(({ gvr }) => {
    const key = `${gvr.Group}/${gvr.Resource}`;
    return (now.get(key) ?? 0) > (before.get(key) ?? 0);
  });
}
